package app

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Cutting waits while the earliest part whose results are not written is
// a window behind, whatever the parts after it did, and stops with the
// run.
func TestPartWindowWaitsForTheEarliestPart(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	w := newPartWindow(ctx, 2)
	for seq := range 2 {
		if err := w.wait(seq); err != nil {
			t.Fatalf("wait(%d) = %v", seq, err)
		}
	}
	waited := make(chan error, 1)
	go func() { waited <- w.wait(2) }()
	w.done(1)
	select {
	case err := <-waited:
		t.Fatalf("part 2 cut (%v) while part 0 is not done", err)
	case <-time.After(20 * time.Millisecond):
	}
	w.done(0)
	if err := <-waited; err != nil {
		t.Fatalf("wait(2) once parts 0 and 1 are done = %v", err)
	}

	go func() { waited <- w.wait(4) }()
	stopped := errors.New("stopped")
	cancel(stopped)
	if err := <-waited; !errors.Is(err, stopped) {
		t.Errorf("wait after the run stopped = %v, want %v", err, stopped)
	}
}
