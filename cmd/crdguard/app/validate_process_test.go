//go:build linux

package app

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/crdguard/crdguard/internal/filetree"
)

// A signal stops a run blocked reading a pipe whose writer stays open
// (`sleep 30 | crdguard validate -`), with the shell's exit code.
func TestValidateStopsOnSignal(t *testing.T) {
	bin := crdguardBinary(t)
	for _, tt := range []struct {
		signal syscall.Signal
		code   int
		stderr string
	}{
		{syscall.SIGINT, 130, "crdguard: stopped by signal 2 (interrupt)\n"},
		{syscall.SIGTERM, 143, "crdguard: stopped by signal 15 (terminated)\n"},
	} {
		t.Run(tt.signal.String(), func(t *testing.T) {
			stdin, writer, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer writer.Close()
			cmd := exec.Command(bin, "validate", "--crds", exampleCRD, "-")
			var stderr bytes.Buffer
			cmd.Stdin, cmd.Stderr = stdin, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stdin.Close()
			// Ends a run the signal did not stop; it has exited otherwise.
			defer func() { _ = cmd.Process.Kill() }()
			// Once the run has read this comment from the pipe its signal
			// handling is in place: a signal sent earlier would kill it
			// before it could say anything.
			if _, err := writer.WriteString("# more to come\n"); err != nil {
				t.Fatal(err)
			}
			waitDrained(t, writer)
			if err := cmd.Process.Signal(tt.signal); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != tt.code || stderr.String() != tt.stderr {
					t.Errorf("exit: %v, stderr %q; want exit status %d and %q", err, stderr.String(), tt.code, tt.stderr)
				}
			case <-time.After(time.Minute):
				t.Fatalf("still running a minute after %s; stderr %q", tt.signal, stderr.String())
			}
		})
	}
}

// waitDrained waits until the reader of w's pipe has read everything.
func waitDrained(t *testing.T, w *os.File) {
	t.Helper()
	for range 6000 {
		var n int32
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, w.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
			t.Fatalf("ioctl FIONREAD: %v", errno)
		}
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("crdguard did not read its standard input within a minute")
}

// A file its user may not read is an error result, and the others are
// still validated. Root reads any file, so as root the run is another
// user's.
func TestValidateReportsUnreadableFile(t *testing.T) {
	bin := crdguardBinary(t)
	dir := filetree.Write(t, map[string]string{
		"crd.yaml":            readFile(t, exampleCRD),
		"objects/good.yaml":   readFile(t, goodYAML),
		"objects/secret.yaml": readFile(t, goodYAML),
	})
	objects := filepath.Join(dir, "objects")
	if err := os.Chmod(filepath.Join(objects, "secret.yaml"), 0); err != nil {
		t.Fatal(err)
	}
	// --quiet=false: the valid object is listed also where CI is set.
	cmd := exec.Command(bin, "validate", "--quiet=false", "--crds", filepath.Join(dir, "crd.yaml"), objects)
	if os.Geteuid() == 0 {
		// t.TempDir and its parent are private to their owner.
		for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitUsage {
		t.Errorf("exit: %v, want exit status 2; stderr %q", err, stderr.String())
	}
	for _, line := range []string{
		objects + "/good.yaml:1 (document 1): MySQLCluster shop/prod is valid (CREATE)",
		objects + "/secret.yaml: error: permission denied",
		"1 object and 1 unreadable input: 1 allowed, 0 denied, 0 skipped, 1 error",
	} {
		if !strings.Contains(stdout.String(), line+"\n") {
			t.Errorf("output lacks %q\n%s", line, stdout.String())
		}
	}
}
