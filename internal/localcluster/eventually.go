package localcluster

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Eventually polls cond every 100ms until it holds, and fails t when
// timeout passes first, with what and the last thing cond reported seeing.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (ok bool, seen string)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		ok, seen := cond(ctx)
		// What a call cut short by the deadline saw says nothing.
		if ctx.Err() == nil {
			last = seen
		}
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %s; last seen: %s", what, timeout, last)
	}
}

// WaitFor is Eventually for a condition that returns an error rather than
// what it saw. An error is polled through like false, as a read can fail
// while the cluster settles, and the last one is in the failure.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	Eventually(t, timeout, what, func(ctx context.Context) (bool, string) {
		ok, err := cond(ctx)
		if err != nil {
			return false, err.Error()
		}
		return ok, "not yet"
	})
}
