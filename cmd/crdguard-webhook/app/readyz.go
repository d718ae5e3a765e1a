package app

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"

	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"github.com/crdguard/crdguard/internal/webhook"
)

// addReadyz adds the health and readiness checks. Ready only when the TLS
// port answers and the sources have produced an engine, and no longer
// once the shutdown starts: the API server should not be sent here before
// both, nor after.
func (s *server) addReadyz(context.Context) error {
	if err := s.mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	for _, c := range []struct {
		name  string
		check healthz.Checker
	}{
		{"webhook", s.webhooks.StartedChecker()},
		{"shutdown", notDraining(s.draining)},
		{"sources", enginesReady(s.engines)},
	} {
		if err := s.mgr.AddReadyzCheck(c.name, c.check); err != nil {
			return err
		}
	}
	return nil
}

// notDraining fails once the shutdown has started.
func notDraining(draining *atomic.Bool) healthz.Checker {
	return func(*http.Request) error {
		if draining.Load() {
			return errors.New("shutting down")
		}
		return nil
	}
}

// enginesReady fails until a source has stored an engine.
func enginesReady(engines *webhook.EngineHolder) healthz.Checker {
	return func(*http.Request) error {
		if !engines.Ready() {
			return errors.New("policies and schemas not loaded")
		}
		return nil
	}
}
