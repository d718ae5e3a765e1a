package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crdguard/crdguard/internal/webhook"
)

// TestFollowEngines checks that sync runs at once, again after a failure's
// retry, again on the next engine build, and that the loop returns when
// the context ends. The resync is an hour, so no call comes from it.
func TestFollowEngines(t *testing.T) {
	engines := &webhook.EngineHolder{}
	calls := make(chan int, 10)
	n := 0
	sync := func(context.Context) error {
		n++
		calls <- n
		if n == 1 {
			return errors.New("the API server is down")
		}
		return nil
	}
	var failures []string
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		followEngines(ctx, engines, time.Hour, time.Millisecond, sync, func(err error, retryIn time.Duration) {
			failures = append(failures, err.Error()+" "+retryIn.String())
		})
	}()

	if got := <-calls; got != 1 {
		t.Fatalf("first call: %d", got)
	}
	if got := <-calls; got != 2 {
		t.Fatalf("call after the retry: %d", got)
	}
	// The loop waits on Changed taken before the second sync.
	engines.Store(nil)
	if got := <-calls; got != 3 {
		t.Fatalf("call after a build: %d", got)
	}
	cancel()
	<-done
	if want := []string{"the API server is down 1ms"}; len(failures) != 1 || failures[0] != want[0] {
		t.Errorf("failures = %q, want %q", failures, want)
	}
}
