package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// A server under test runs as a child process, so its CPU time and memory
// are its own and not the load generator's.
type server struct {
	proc *localcluster.Process
	name string
	url  string // https://127.0.0.1:port
	// startup is the time from exec to ready.
	startup time.Duration
}

// The servers the webhook families compare.
const (
	serverCrdguard = "crdguard"
	serverNoop     = "controller-runtime no-op"
	serverEcho     = "net/http echo"
)

// server starts the named server once: crdguard-webhook with the example
// CRD and GuardPolicy, or one of this program's own (serve.go).
func (env *environment) server(ctx context.Context, name string) (*server, error) {
	if s, ok := env.servers[name]; ok {
		return s, nil
	}
	var s *server
	var err error
	switch name {
	case serverCrdguard:
		examples := filepath.Join(env.root, "examples", "mysql")
		s, err = env.startWebhook(ctx, name, []string{filepath.Join(examples, "crd.yaml")}, []string{filepath.Join(examples, "policy.yaml")})
	case serverNoop, serverEcho:
		s, err = env.startOwn(ctx, name)
	default:
		return nil, fmt.Errorf("no server %q", name)
	}
	if err != nil {
		return nil, err
	}
	env.servers[name] = s
	return s, nil
}

// startWebhook runs crdguard-webhook on files, with HTTP/2 enabled (as the
// API server would use it), and waits for /readyz.
func (env *environment) startWebhook(ctx context.Context, name string, crds, policies []string) (*server, error) {
	bin, err := env.binary("./cmd/crdguard-webhook")
	if err != nil {
		return nil, err
	}
	if _, err := env.cluster(); err != nil {
		return nil, err
	}
	ports, err := localcluster.FreePorts(3)
	if err != nil {
		return nil, err
	}
	args := []string{
		"--bind-address", "127.0.0.1", "--port", strconv.Itoa(ports[0]), "--cert-dir", env.certDir,
		"--health-probe-bind-address", "127.0.0.1:" + strconv.Itoa(ports[1]),
		"--metrics-bind-address", "127.0.0.1:" + strconv.Itoa(ports[2]),
		"--kubeconfig", env.kubeconfig, "--enable-http2",
	}
	for _, c := range crds {
		args = append(args, "--crds", c)
	}
	for _, p := range policies {
		args = append(args, "--policies", p)
	}
	readyz := fmt.Sprintf("http://127.0.0.1:%d/readyz", ports[1])
	return env.start(ctx, name, ports[0], bin, args, func() (bool, error) {
		resp, err := http.Get(readyz)
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// startOwn runs this program in its serving mode (serve.go) and waits
// until the TLS port answers.
func (env *environment) startOwn(ctx context.Context, name string) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	ports, err := localcluster.FreePorts(1)
	if err != nil {
		return nil, err
	}
	args := []string{"-serve", name, "-serve-port", strconv.Itoa(ports[0]), "-serve-cert-dir", env.certDir}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: env.caPool}}, Timeout: time.Second}
	url := fmt.Sprintf("https://127.0.0.1:%d%s", ports[0], ownPath)
	return env.start(ctx, name, ports[0], self, args, func() (bool, error) {
		resp, err := client.Post(url, "application/json", strings.NewReader(probeReview))
		if err != nil {
			return false, err
		}
		_, _ = io.Copy(io.Discard, resp.Body) // drained so the connection is reused
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// start execs bin and waits until ready, timing it.
func (env *environment) start(ctx context.Context, name string, port int, bin string, args []string, ready func() (bool, error)) (*server, error) {
	logFile, err := os.Create(filepath.Join(env.work, fmt.Sprintf("%s-%d.log", strings.NewReplacer(" ", "-", "/", "-").Replace(name), port)))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	p, err := localcluster.StartProcess(cmd)
	logFile.Close() // the process writes to its own copy of the descriptor
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	s := &server{proc: p, name: name, url: fmt.Sprintf("https://127.0.0.1:%d", port)}
	err = wait(ctx, 3*time.Minute, func() (bool, error) {
		if !p.Running() {
			return false, fmt.Errorf("exited: %v", p.Cmd.ProcessState)
		}
		return ready()
	})
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("%s did not become ready: %w; its log is %s", name, err, logFile.Name())
	}
	s.startup = time.Since(start)
	return s, nil
}

// stop ends the server gracefully and waits for it. How a server stopped
// on purpose exited says nothing about the run.
func (s *server) stop() { _ = s.proc.Stop(20 * time.Second) }

// cpu is the server's CPU time so far (user and system).
func (s *server) cpu() (time.Duration, error) {
	return processCPU(s.proc.Cmd.Process.Pid)
}

// rss is the server's resident memory now.
func (s *server) rss() (int64, error) {
	return processRSS(s.proc.Cmd.Process.Pid)
}
