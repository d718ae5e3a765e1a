package app

import (
	"errors"
	"strings"
	"sync/atomic"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"

	"github.com/crdguard/crdguard/internal/webhook"
)

// httpErrorLog is where the HTTP servers' errors go. controller-runtime
// gives its servers no ErrorLog, so net/http writes each error with the
// standard logger: a line for every failed TLS handshake, which any caller
// can fail hundreds of times a second, carrying whatever its certificate
// says. Here each line is bounded and logged as JSON; past a burst, one a
// second is, with the count of those dropped before it.
type httpErrorLog struct {
	log     logr.Logger
	limit   *rate.Limiter
	dropped atomic.Int64
}

// The lines logged at once, and a second after that.
const httpErrorBurst = 10

func newHTTPErrorLog(log logr.Logger) *httpErrorLog {
	return &httpErrorLog{log: log, limit: rate.NewLimiter(1, httpErrorBurst)}
}

// Write logs one line of the standard logger.
func (l *httpErrorLog) Write(p []byte) (int, error) {
	if !l.limit.Allow() {
		l.dropped.Add(1)
		return len(p), nil
	}
	line := webhook.BoundError(errors.New(strings.TrimSpace(string(p)))).Error()
	l.log.Info("HTTP server error", "message", line, "droppedBefore", l.dropped.Swap(0))
	return len(p), nil
}
