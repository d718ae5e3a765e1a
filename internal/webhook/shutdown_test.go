package webhook

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSurvivesShutdown: a request's context ending because the server
// shuts down leaves the handler's context alive; ending because the
// client went away cancels it.
func TestSurvivesShutdown(t *testing.T) {
	for _, tt := range []struct {
		name         string
		shuttingDown bool
		wantCanceled bool
	}{
		{name: "server shutting down", shuttingDown: true, wantCanceled: false},
		{name: "client gone", shuttingDown: false, wantCanceled: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			shutdown, stopServing := context.WithCancel(t.Context())
			defer stopServing()
			reqCtx, endRequest := context.WithCancel(t.Context())
			inHandler, canceled := make(chan struct{}), make(chan bool, 1)
			handler := survivesShutdown(shutdown, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				close(inHandler)
				select {
				case <-r.Context().Done():
					canceled <- true
				case <-time.After(200 * time.Millisecond):
					canceled <- false
				}
			}))
			go handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, ValidatePath, nil).WithContext(reqCtx))
			<-inHandler
			// As the server does: its context first, then the request's.
			if tt.shuttingDown {
				stopServing()
			}
			endRequest()
			if got := <-canceled; got != tt.wantCanceled {
				t.Errorf("handler's context canceled = %v, want %v", got, tt.wantCanceled)
			}
		})
	}
}

// TestClosesWhenDraining: once draining, every answer asks its client to
// close the connection; before, none does.
func TestClosesWhenDraining(t *testing.T) {
	var draining bool
	h := closesWhenDraining(func() bool { return draining }, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	for _, d := range []bool{false, true} {
		draining = d
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, ValidatePath, nil))
		if got := rec.Header().Get("Connection") == "close"; got != d {
			t.Errorf("draining %v: Connection %q", d, rec.Header().Get("Connection"))
		}
	}
}

// TestHTTP2KeepsConnectionsWhileDraining: over HTTP/2, answers while
// draining leave the connection open, so requests already on their way on
// it are served; the server's shutdown sends its GOAWAY once, when the
// delay ends. Each "Connection: close" answer made net/http send a GOAWAY
// and close the connection, and every caller reconnected for each request.
func TestHTTP2KeepsConnectionsWhileDraining(t *testing.T) {
	server := httptest.NewUnstartedServer(closesWhenDraining(func() bool { return true }, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	server.EnableHTTP2 = true
	server.StartTLS()
	defer server.Close()
	client := server.Client()
	var conns []bool
	for range 3 {
		ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) { conns = append(conns, c.Reused) }})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, server.URL+ValidatePath, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.ProtoMajor != 2 {
			t.Fatalf("served over %s, want HTTP/2", resp.Proto)
		}
	}
	if !slices.Equal(conns, []bool{false, true, true}) {
		t.Errorf("connections reused %v, want one connection for all three requests", conns)
	}
}

// TestHTTP2DrainingUnderConcurrentLoad: 32 callers sharing one HTTP/2
// connection pool, as kube-apiserver's webhook client does, send 800
// reviews while the server drains: none fails, none is sent again on a
// new connection, and all share one. An answer's "Connection: close"
// made net/http send a GOAWAY and close the connection, and the streams
// racing it were sent again on a new one.
func TestHTTP2DrainingUnderConcurrentLoad(t *testing.T) {
	server := httptest.NewUnstartedServer(closesWhenDraining(func() bool { return true }, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		time.Sleep(5 * time.Millisecond) // an evaluation, so that streams overlap
	})))
	server.EnableHTTP2 = true
	server.StartTLS()
	defer server.Close()
	client := server.Client()
	var connected, resent, failed atomic.Int64
	body := bytes.Repeat([]byte{' '}, 1<<10)
	var callers sync.WaitGroup
	for range 32 {
		callers.Go(func() {
			for range 25 {
				// A request given a connection twice was sent again.
				var conns int
				trace := &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) {
					if conns++; conns == 2 {
						resent.Add(1)
					}
					if !c.Reused {
						connected.Add(1)
					}
				}}
				req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), http.MethodPost, server.URL+ValidatePath, bytes.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
					failed.Add(1)
				}
			}
		})
	}
	callers.Wait()
	t.Logf("800 requests: %d failed, %d sent again, %d connections", failed.Load(), resent.Load(), connected.Load())
	if failed.Load() != 0 || resent.Load() != 0 {
		t.Errorf("while draining, %d of 800 requests failed and %d were sent again", failed.Load(), resent.Load())
	}
	if connected.Load() > 1 {
		t.Errorf("800 requests opened %d connections while draining, want one", connected.Load())
	}
}
