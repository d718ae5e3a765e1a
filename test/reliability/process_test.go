package reliability

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// webhookProcess is crdguard-webhook running as its own process, as the
// kubelet runs it: signals and stderr are the real ones.
type webhookProcess struct {
	*localcluster.Process
	addr  string // the webhook server's host:port
	probe string // the health probes' host:port
	// stderr is everything it logged.
	stderr *localcluster.Output
}

// startWebhook runs the built binary with the example policy and CRD from
// files on a free port and waits until it is ready. args come last, so
// they can override. The process is killed when the test ends, if it is
// still running.
func startWebhook(t *testing.T, args ...string) *webhookProcess {
	t.Helper()
	return startWebhookWithEnv(t, nil, args...)
}

// startWebhookWithEnv is startWebhook with env as the process's
// environment; nil inherits the test's.
func startWebhookWithEnv(t *testing.T, env []string, args ...string) *webhookProcess {
	t.Helper()
	ports, err := localcluster.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	p := &webhookProcess{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0])), stderr: &localcluster.Output{}}
	probe := "127.0.0.1:" + strconv.Itoa(ports[1])
	p.probe = probe
	cmd := exec.Command(cluster.binary, append([]string{
		"--policies", filepath.Join(cluster.examples, "policy.yaml"),
		"--crds", filepath.Join(cluster.examples, "crd.yaml"),
		"--kubeconfig", cluster.kubeconfig,
		"--cert-dir", cluster.certDir,
		"--bind-address", "127.0.0.1", "--port", strconv.Itoa(ports[0]),
		"--health-probe-bind-address", probe,
		"--metrics-bind-address", "0",
	}, args...)...)
	cmd.Stderr, cmd.Env = p.stderr, env
	if p.Process, err = localcluster.StartProcess(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.Running() {
			_ = p.Cmd.Process.Kill()
			<-p.Exited()
		}
	})
	if err := p.WaitReady(t.Context(), probe); err != nil {
		t.Fatalf("%v\n%s", err, p.stderr)
	}
	return p
}

// signal sends sig to the process.
func (p *webhookProcess) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// wait waits up to limit for the process to exit and returns its exit
// code; limit only keeps a hung process from hanging the test.
func (p *webhookProcess) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.Exited():
		return p.Cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		t.Fatalf("still running %s after the signal\n%s", limit, p.stderr)
		return 0
	}
}

// refusesConnections waits until a TCP connection to the webhook is
// refused: its listener is closed.
func (p *webhookProcess) refusesConnections(ctx context.Context) error {
	for {
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", p.addr)
		if err == nil {
			conn.Close()
		} else if isRefused(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func isRefused(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && errno == syscall.ECONNREFUSED
}
