package main

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func TestClosedLoop(t *testing.T) {
	var ops atomic.Int32
	latencies, elapsed, err := closedLoop(t.Context(), 3, 50*time.Millisecond, func(context.Context) error {
		ops.Add(1)
		time.Sleep(time.Millisecond)
		return nil
	})
	if err != nil || len(latencies) != int(ops.Load()) || len(latencies) < 3 || !slices.IsSorted(latencies) || elapsed < 50*time.Millisecond {
		t.Errorf("got %d latencies (sorted %t) of %d ops in %s, err %v; want one per op, sorted, over at least 50ms", len(latencies), slices.IsSorted(latencies), ops.Load(), elapsed, err)
	}

	// The first error stops every worker and is the one returned, not
	// the cancellations it causes.
	boom := errors.New("boom")
	var calls atomic.Int32
	_, _, err = closedLoop(t.Context(), 4, time.Minute, func(ctx context.Context) error {
		if calls.Add(1) == 5 {
			return boom
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
			return nil
		}
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
}
