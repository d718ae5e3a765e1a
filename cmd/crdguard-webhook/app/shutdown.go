package app

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
)

// delayShutdown returns a context that ends delay after parent does, and
// sets draining when parent ends. In between, the server keeps serving
// while /readyz fails and every answer asks its client to close the
// connection: the endpoints drop the pod and the API server's keep-alive
// connections move elsewhere before the listener closes, so no request
// is sent to a connection that is going away.
func delayShutdown(parent context.Context, delay time.Duration, draining *atomic.Bool, log logr.Logger) context.Context {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	context.AfterFunc(parent, func() {
		draining.Store(true)
		log.Info("Shutting down: not ready, still serving", "delay", delay)
		time.AfterFunc(delay, cancel)
	})
	return ctx
}
