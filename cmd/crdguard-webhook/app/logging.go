package app

import (
	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
)

// newLogger logs JSON at info level, for log collectors, or with dev
// human-readable console lines at debug level (logr V(1)).
func newLogger(dev bool) (logr.Logger, error) {
	cfg := zap.NewProductionConfig()
	if dev {
		cfg = zap.NewDevelopmentConfig()
	}
	// Stack traces belong to panics, not to every error a request causes.
	cfg.DisableStacktrace = true
	z, err := cfg.Build()
	if err != nil {
		return logr.Discard(), err
	}
	return zapr.NewLogger(z), nil
}
