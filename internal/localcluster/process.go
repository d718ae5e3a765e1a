package localcluster

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Process is a server binary run as its own process, the way a kubelet
// runs it: watched until it exits, and stopped with SIGTERM.
type Process struct {
	// Cmd is the started command: its Process for signals and the pid,
	// its ProcessState once Exited is closed.
	Cmd    *exec.Cmd
	exited chan struct{}
	err    error // how it exited; set before exited is closed
}

// StartProcess starts cmd, with the output and attributes the caller set,
// and watches for its exit.
func StartProcess(cmd *exec.Cmd) (*Process, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Running tells whether the process has not exited yet.
func (p *Process) Running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// WaitReady waits until the health probe address probe answers /readyz,
// and fails early, saying how, when the process exits first.
func (p *Process) WaitReady(ctx context.Context, probe string) error {
	err := WaitReady(ctx, probe, p.exited)
	if !p.Running() {
		return fmt.Errorf("it exited before it was ready: %v", p.err)
	}
	return err
}

// Stop sends SIGTERM and waits for the exit, which it returns; a process
// still running after grace is killed, and the error says so.
func (p *Process) Stop(grace time.Duration) error {
	_ = p.Cmd.Process.Signal(syscall.SIGTERM) // fails only once it has exited
	select {
	case <-p.exited:
		return p.err
	case <-time.After(grace):
		_ = p.Cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("still running %s after SIGTERM: killed", grace)
	}
}

// Output collects a process's output while others read it.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *Output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(b)
}

func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}
