package reliability

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// inFlight is how many requests are open when SIGTERM arrives.
const inFlight = 8

// exitMargin is how long past its shutdown timeout a process may take to
// exit before the test calls it hung: process teardown on a loaded
// machine, not a performance bound.
const exitMargin = 30 * time.Second

// TestGracefulShutdown: SIGTERM while requests are in flight (their
// handlers are reading the bodies) closes the listener at once, so new
// connections are refused, lets every in-flight request finish with its
// verdict, and then the process exits 0.
func TestGracefulShutdown(t *testing.T) {
	const shutdownTimeout = 20 * time.Second
	p := startWebhook(t, "--shutdown-timeout", shutdownTimeout.String())
	good := example(t, "good.yaml")
	unsafe := example(t, "unsafe.yaml")
	bodies := [2][]byte{review("in-flight", admissionv1.Create, good, nil), review("in-flight", admissionv1.Create, unsafe, nil)}

	requests := make([]*heldRequest, inFlight)
	for i := range requests {
		requests[i] = holdRequest(t, p.addr, bodies[i%2])
	}
	for _, r := range requests {
		r.waitReading(t)
	}

	p.signal(t, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(t.Context(), shutdownTimeout)
	defer cancel()
	if err := p.refusesConnections(ctx); err != nil {
		t.Fatalf("new connections still accepted after SIGTERM: %v\n%s", err, p.stderr)
	}
	if !p.Running() {
		t.Fatalf("exited with requests in flight\n%s", p.stderr)
	}

	for i, r := range requests {
		a, err := r.finish(t)
		wantAllowed := i%2 == 0
		switch {
		case err != nil:
			t.Errorf("in-flight request %d: %v", i, err)
		case a.status != http.StatusOK || a.response() == nil || a.response().UID != "in-flight":
			t.Errorf("in-flight request %d: %s, want its review", i, a)
		case a.response().Allowed != wantAllowed || !wantAllowed && a.code() != http.StatusUnprocessableEntity:
			t.Errorf("in-flight request %d: %s, want allowed=%v", i, a, wantAllowed)
		}
	}
	if code := p.wait(t, shutdownTimeout+exitMargin); code != 0 {
		t.Errorf("exit code %d, want 0\n%s", code, p.stderr)
	}
}

// TestShutdownGracePeriod: a request that never finishes does not hold
// the process beyond --shutdown-timeout: it exits 1 saying so, so the
// kubelet never has to kill it.
func TestShutdownGracePeriod(t *testing.T) {
	const shutdownTimeout = 2 * time.Second
	p := startWebhook(t, "--shutdown-timeout", shutdownTimeout.String())
	stuck := holdRequest(t, p.addr, []byte("{}"))
	stuck.waitReading(t)
	p.signal(t, syscall.SIGTERM)
	if code := p.wait(t, shutdownTimeout+exitMargin); code != 1 {
		t.Errorf("exit code %d, want 1\n%s", code, p.stderr)
	}
	if want := "failed waiting for all runnables to end within grace period of 2s"; !strings.Contains(p.stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, p.stderr)
	}
	stuck.abandon()
}

// heldRequest is a POST whose handler is running, reading a body the test
// has not sent yet.
type heldRequest struct {
	body    []byte
	pipe    *io.PipeWriter
	reading chan struct{} // closed when the server asked for the body
	done    chan heldAnswer
}

type heldAnswer struct {
	answer
	err error
}

// holdRequest starts a POST of body to /validate with "Expect:
// 100-continue": the server answers 100 Continue only once the handler
// reads the body, which tells the test the request is in flight, and the
// client sends the body only when the test says so.
func holdRequest(t *testing.T, addr string, body []byte) *heldRequest {
	t.Helper()
	pr, pw := io.Pipe()
	h := &heldRequest{body: body, pipe: pw, reading: make(chan struct{}), done: make(chan heldAnswer, 1)}
	// One connection per request, so each is in flight on its own.
	transport := &http.Transport{TLSClientConfig: trustingClientTLS(), ExpectContinueTimeout: time.Minute, DisableKeepAlives: true}
	t.Cleanup(transport.CloseIdleConnections)
	ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{Got100Continue: func() { close(h.reading) }})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+addr+"/validate", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Expect", "100-continue")
	go func() {
		a, err := do(&http.Client{Transport: transport}, req)
		h.done <- heldAnswer{a, err}
	}()
	return h
}

// waitReading waits until the handler reads the body.
func (h *heldRequest) waitReading(t *testing.T) {
	t.Helper()
	select {
	case <-h.reading:
	case res := <-h.done:
		t.Fatalf("the request ended before its body was sent: %v %v", res.answer, res.err)
	case <-time.After(time.Minute):
		t.Fatal("the server never asked for the body")
	}
}

// finish sends the body and returns the answer.
func (h *heldRequest) finish(t *testing.T) (answer, error) {
	t.Helper()
	go func() {
		_, _ = io.Copy(h.pipe, bytes.NewReader(h.body))
		h.pipe.Close()
	}()
	select {
	case res := <-h.done:
		return res.answer, res.err
	case <-time.After(time.Minute):
		t.Fatal("no answer a minute after the body was sent")
		return answer{}, nil
	}
}

// abandon gives up on the request.
func (h *heldRequest) abandon() {
	h.pipe.CloseWithError(io.ErrUnexpectedEOF)
}

// TestShutdownUnderKeepAliveLoad: with --shutdown-delay, SIGTERM under
// keep-alive load, HTTP/1.1 and HTTP/2, fails no request. /readyz fails at
// once and requests are still served for the delay (answers close their
// connections), then the drain. The callers stop sending once /readyz
// has failed and a second has passed since SIGTERM, as the API server
// does once the endpoints drop the pod: every request they sent is
// answered. The delay leaves a loaded machine five more seconds.
func TestShutdownUnderKeepAliveLoad(t *testing.T) {
	good := example(t, "good.yaml")
	good.SetNamespace(shopNamespace)
	body := review("keep-alive", admissionv1.Create, good, nil)
	for _, http2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "HTTP/1.1", true: "HTTP/2"}[http2], func(t *testing.T) {
			const callersStop = time.Second // the endpoints dropping the pod
			args := []string{"--shutdown-delay", (callersStop + 5*time.Second).String()}
			transport := &http.Transport{TLSClientConfig: trustingClientTLS(), MaxIdleConnsPerHost: 16, ForceAttemptHTTP2: http2}
			if http2 {
				args = append(args, "--enable-http2")
			} else {
				transport.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
			}
			p := startWebhook(t, args...)
			client := &http.Client{Transport: transport}
			defer client.CloseIdleConnections()

			var signaled, stopped atomic.Bool
			var afterSignal atomic.Int64
			failures := make(chan string, 100)
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for !stopped.Load() {
						a, err := post(t.Context(), client, p.addr, "/validate", "application/json", bytes.NewReader(body))
						if err != nil || a.status != http.StatusOK || a.response() == nil || !a.response().Allowed {
							failures <- fmt.Sprintf("%v %s", err, a)
							return
						}
						if signaled.Load() {
							afterSignal.Add(1)
						}
					}
				})
			}
			time.Sleep(500 * time.Millisecond)
			signaled.Store(true)
			p.signal(t, syscall.SIGTERM)
			stop := time.After(callersStop)
			if err := waitNotReady(t.Context(), p.probe); err != nil {
				t.Fatalf("/readyz: %v", err)
			}
			<-stop
			stopped.Store(true)
			wg.Wait()
			close(failures)
			for f := range failures {
				t.Errorf("a request failed during the shutdown: %s", f)
			}
			if afterSignal.Load() == 0 {
				t.Error("no request was served after SIGTERM: the delay did not keep serving")
			}
			if code := p.wait(t, 30*time.Second); code != 0 {
				t.Errorf("exit code %d\n%s", code, p.stderr)
			}
		})
	}
}

// waitNotReady waits until /readyz at probe answers other than 200.
func waitNotReady(ctx context.Context, probe string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+probe+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("still ready")
		case <-time.After(20 * time.Millisecond):
		}
	}
}
