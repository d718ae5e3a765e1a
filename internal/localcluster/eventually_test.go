package localcluster

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// failureRecorder is a testing.TB whose Fatalf records the failure.
type failureRecorder struct {
	testing.TB
	failure string
}

func (r *failureRecorder) Helper() {}

func (r *failureRecorder) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
}

func TestWaitFor(t *testing.T) {
	// An error is polled through, not the end of the wait.
	calls := 0
	r := &failureRecorder{TB: t}
	WaitFor(r, 10*time.Second, "the third call", func(context.Context) (bool, error) {
		if calls++; calls < 3 {
			return false, errors.New("not served yet")
		}
		return true, nil
	})
	if r.failure != "" || calls != 3 {
		t.Errorf("after %d calls: %q; want success on the third", calls, r.failure)
	}

	// The last error is in the failure.
	r = &failureRecorder{TB: t}
	WaitFor(r, 300*time.Millisecond, "never", func(context.Context) (bool, error) { return false, errors.New("boom") })
	if want := "never: not within 300ms; last seen: boom"; r.failure != want {
		t.Errorf("failure %q, want %q", r.failure, want)
	}
}
