package localcluster

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

func TestProcessStop(t *testing.T) {
	// A server that exits when told to.
	out := &Output{}
	cmd := exec.Command("sh", "-c", `trap 'echo terminated; exit 0' TERM; echo started; while :; do sleep 0.05; done`)
	cmd.Stdout = out
	p, err := StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	waitForOutput(t, out, "started\n")
	if !p.Running() {
		t.Fatal("not running after it started")
	}
	if err := p.Stop(10 * time.Second); err != nil || out.String() != "started\nterminated\n" {
		t.Errorf("stopped: %v, output %q; want a clean exit after the trap ran", err, out.String())
	}
	if p.Running() || p.Cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("running %v, exit code %d after Stop", p.Running(), p.Cmd.ProcessState.ExitCode())
	}
	// Stopping again says how it exited, at once.
	if err := p.Stop(time.Hour); err != nil {
		t.Errorf("second stop: %v", err)
	}

	// A server that ignores SIGTERM is killed after the grace period.
	out = &Output{}
	cmd = exec.Command("sh", "-c", `trap '' TERM; echo started; exec sleep 60`)
	cmd.Stdout = out
	stubborn, err := StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	waitForOutput(t, out, "started\n")
	if err := stubborn.Stop(200 * time.Millisecond); err == nil || err.Error() != "still running 200ms after SIGTERM: killed" {
		t.Errorf("stop of a process ignoring SIGTERM: %v", err)
	}
	if stubborn.Running() {
		t.Error("still running after the kill")
	}
}

func TestProcessWaitReady(t *testing.T) {
	p, err := StartProcess(exec.Command("sh", "-c", "exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitReady(t.Context(), "127.0.0.1:1"); err == nil || err.Error() != "it exited before it was ready: exit status 3" {
		t.Errorf("err = %v, want it exited with status 3", err)
	}
	if _, err := StartProcess(exec.Command("/nonexistent/server")); err == nil {
		t.Error("starting a missing binary: no error")
	}
}

// waitForOutput waits until the process has written want: its shell has
// set its trap then.
func waitForOutput(t *testing.T, out *Output, want string) {
	t.Helper()
	Eventually(t, 10*time.Second, "the shell's trap is set", func(context.Context) (bool, string) {
		return out.String() == want, out.String()
	})
}
