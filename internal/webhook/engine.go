package webhook

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/crdguard/crdguard/pkg/policies"
)

// ErrNotReady is what a request gets before any source has produced an
// engine, and what waits on one reports. It is an evaluation error (500), never an allow: failing open
// before the policies are known would let exactly the unsafe objects in.
var ErrNotReady = errors.New("crdguard has not loaded its policies and schemas yet")

// EngineHolder holds the engine every request is evaluated with. Sources
// (internal/cluster: the files once, the cluster after every change) build
// a new engine and Store it; requests in flight keep the engine they loaded. The
// zero value holds no engine.
type EngineHolder struct {
	engine atomic.Pointer[policies.Engine]

	mu sync.Mutex
	// changed is closed by the next Store; nil until Changed asks.
	changed chan struct{}
}

// NewEngineHolder returns a holder with engine already stored.
func NewEngineHolder(engine *policies.Engine) *EngineHolder {
	h := &EngineHolder{}
	h.Store(engine)
	return h
}

// Load returns the current engine, or nil when none was stored yet.
func (h *EngineHolder) Load() *policies.Engine { return h.engine.Load() }

// Store replaces the engine for every request that starts afterwards.
func (h *EngineHolder) Store(engine *policies.Engine) {
	h.engine.Store(engine)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.changed != nil {
		close(h.changed)
		h.changed = nil
	}
}

// Changed returns a channel that the next Store closes: what follows the
// engine (internal/cluster's managed webhook rules and GuardPolicy status)
// waits on it instead of watching the sources again.
func (h *EngineHolder) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.changed == nil {
		h.changed = make(chan struct{})
	}
	return h.changed
}

// Ready tells whether an engine is loaded, for the readiness probe.
func (h *EngineHolder) Ready() bool { return h.Load() != nil }

// evaluate runs the engine within the request's context. A request whose
// context is done (the API server's timeout passed, or it hung up) is not
// evaluated, and an evaluation that outlives it is discarded: whatever it
// found, nobody is waiting for the answer, and a verdict computed after the
// deadline must not pass for one computed in time.
func evaluate(ctx context.Context, engine *policies.Engine, req policies.Request) (policies.Result, error) {
	if err := ctx.Err(); err != nil {
		return policies.Result{}, fmt.Errorf("not evaluated: %w", err)
	}
	res, err := engine.Evaluate(ctx, req)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("evaluation outlived the request: %w", ctx.Err())
	}
	return res, err
}
