package webhook

import (
	"context"
	"net/http"
)

// survivesShutdown gives each request a context that the client going
// away cancels (the API server's timeout passed, or it hung up), but the
// server shutting down does not. controller-runtime's webhook server
// derives every request's context from the context it runs with, so a
// graceful shutdown would cancel every request in flight, and crdguard,
// which honours the request's context, would answer them 500: under
// failurePolicy Fail, every rollout would reject the requests it was
// serving. The manager's shutdown timeout still bounds them. shutdown is
// done once the server is stopping; nil changes nothing.
func survivesShutdown(shutdown context.Context, next http.Handler) http.Handler {
	if shutdown == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
		defer cancel()
		// The server cancels a request's context only after shutdown is
		// done, so a request canceled while shutdown is not is one whose
		// client went away.
		stop := context.AfterFunc(r.Context(), func() {
			if shutdown.Err() == nil {
				cancel()
			}
		})
		defer stop()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// closesWhenDraining asks the client of every HTTP/1.1 answer to close
// its connection once draining says the server is about to shut down, so
// that no keep-alive connection is idle, and about to be used, when the
// listener closes. HTTP/2 connections are left open until the shutdown
// starts, which sends each one GOAWAY: for HTTP/2, net/http turns the
// header into a GOAWAY and closes the connection a second after, so every
// answer cost its caller a new connection, and requests racing the close
// stalled or failed. nil changes nothing.
func closesWhenDraining(draining func() bool, next http.Handler) http.Handler {
	if draining == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 1 && draining() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}
