package localcluster

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestWaitReady(t *testing.T) {
	var calls atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" || calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer server.Close()
	probe := strings.TrimPrefix(server.URL, "http://")

	if err := WaitReady(t.Context(), probe, make(chan error, 1)); err != nil || calls.Load() != 3 {
		t.Errorf("ready on the third probe: err %v after %d probes", err, calls.Load())
	}

	// Stopped first: the error says how, and the value stays for the next
	// reader.
	exited := make(chan error, 1)
	exited <- errors.New("exit status 2")
	err := WaitReady(t.Context(), "127.0.0.1:1", exited)
	if err == nil || err.Error() != "it stopped before it was ready: exit status 2" {
		t.Errorf("err = %v, want it stopped with exit status 2", err)
	}
	if got := <-exited; got == nil || got.Error() != "exit status 2" {
		t.Errorf("exited then holds %v, want the exit error back", got)
	}

	// A closed channel is a stop too, and is not written to.
	done := make(chan struct{})
	close(done)
	if err := WaitReady(t.Context(), "127.0.0.1:1", done); err == nil || !strings.Contains(err.Error(), "stopped before it was ready") {
		t.Errorf("err = %v, want stopped", err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if err := WaitReady(ctx, "127.0.0.1:1", make(chan error, 1)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("never ready: err = %v, want the context's deadline", err)
	}
}
