package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
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
