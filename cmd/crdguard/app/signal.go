package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext is ctx cancelled by the first SIGINT or SIGTERM, with the
// signal as its cause, so that Run exits as a shell's child does: 128 plus
// the signal's number (130 for SIGINT, 143 for SIGTERM). stop restores the
// signals' default behaviour.
func SignalContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-signals:
			cancel(&signalError{s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(signals)
		cancel(context.Canceled)
	}
}

// signalError is the cause of a run stopped by a signal.
type signalError struct{ signal syscall.Signal }

func (e *signalError) Error() string {
	return fmt.Sprintf("stopped by signal %d (%s)", int(e.signal), e.signal)
}

// exitCode is 128 plus the signal's number, as shells report it.
func (e *signalError) exitCode() int { return 128 + int(e.signal) }

// signalled is the signal that stopped ctx, or nil.
func signalled(ctx context.Context) *signalError {
	var s *signalError
	if errors.As(context.Cause(ctx), &s) {
		return s
	}
	return nil
}
