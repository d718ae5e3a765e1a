package webhook

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/crdguard/crdguard/pkg/policies"
)

// The paths the WebhookConfigurations call.
const (
	ValidatePath = "/validate"
	MutatePath   = "/mutate"
	// ValidatePolicyPath validates GuardPolicies themselves; register it
	// for guardpolicies.crdguard.dev CREATE and UPDATE.
	ValidatePolicyPath = "/validate-policy"
)

// Config is what the handlers share.
type Config struct {
	// Engines holds the engine requests are evaluated with.
	Engines *EngineHolder
	// Metrics records decisions; nil records nothing.
	Metrics *Metrics
	// NamespaceLabels looks up labels for namespaceSelectors; nil leaves
	// them unknown.
	NamespaceLabels NamespaceLabelsFunc
	// Routing makes /validate-policy name the kinds of a policy no
	// configuration sends to crdguard; nil checks nothing.
	Routing *Routing
	// ApprovalKey signs approval records (/mutate) and verifies them
	// (/validate); nil signs none, and then a stored approval approves no
	// DELETE.
	ApprovalKey *policies.ApprovalKey
	// CRDGuard enables ValidateCRDPath; nil leaves it unserved (opt-in:
	// it needs list on the guarded kinds).
	CRDGuard *CRDGuard
	// BodyBudget bounds the request bodies read and handled at once, over
	// every path; nil bounds none.
	BodyBudget *BodyBudget
	// Draining tells that the server is about to shut down: answers then
	// ask their clients to close the connection. nil: never.
	Draining func() bool
	// Shutdown is done once the server starts shutting down (the context
	// the manager runs with): requests in flight then still finish. nil:
	// they are canceled with the server's context.
	Shutdown context.Context
	// VerifyFastPaths validates objects with and without crdguard's fast
	// paths, and makes a difference an evaluation error (see
	// verifiesFastPaths). Default false.
	VerifyFastPaths bool
}

// webhooks returns the admission webhooks by path, each recovering from a
// panic in its handler as a 500 response: one bad object must not take the
// server down with every request in flight.
func webhooks(cfg Config) map[string]reviewServer {
	hooks := map[string]reviewServer{
		ValidatePath:       serveReviews(&Validator{Engines: cfg.Engines, Metrics: cfg.Metrics, NamespaceLabels: cfg.NamespaceLabels, ApprovalKey: cfg.ApprovalKey}),
		MutatePath:         serveReviews(&Mutator{Engines: cfg.Engines, NamespaceLabels: cfg.NamespaceLabels, ApprovalKey: cfg.ApprovalKey}),
		ValidatePolicyPath: serveReviews(&PolicyValidator{Engines: cfg.Engines, Routing: cfg.Routing}),
	}
	if cfg.CRDGuard != nil {
		hooks[ValidateCRDPath] = serveRawReviews(&CRDValidator{Guard: cfg.CRDGuard, Metrics: cfg.Metrics})
	}
	for path, hook := range hooks {
		hook.budget = cfg.BodyBudget
		hooks[path] = hook
	}
	return hooks
}

// Register serves the webhooks on server.
func Register(server webhook.Server, cfg Config) {
	for path, hook := range webhooks(cfg) {
		server.Register(path, closesWhenDraining(cfg.Draining, survivesShutdown(cfg.Shutdown, verifiesFastPaths(cfg.VerifyFastPaths, hook))))
	}
}
