package cluster

import (
	"context"

	"github.com/crdguard/crdguard/pkg/policies"
)

// SourceStats say what an engine was built from, for logs and metrics.
type SourceStats struct {
	// Policies is the number of GuardPolicies.
	Policies int
	// Schemas is the number of kinds (group, version, kind) with a schema.
	Schemas int
}

// EngineFromFiles builds the engine the webhook evaluates requests with
// from CRD files and GuardPolicy files (files or directories), validated
// exactly as `crdguard validate --crds --policies` validates them, and
// leaving out the rules mode leaves to compiled policies.
func EngineFromFiles(ctx context.Context, crdPaths, policyPaths []string, mode Mode) (*policies.Engine, SourceStats, error) {
	// A path without a CRD or a GuardPolicy is an error: a webhook started
	// with none would allow everything. A server has no standard input,
	// so "-" reads nothing.
	all, guardPolicies, err := policies.Files{CRDs: crdPaths, Policies: policyPaths}.Engine(ctx)
	if err != nil {
		return nil, SourceStats{}, err
	}
	engine, err := mode.admissionEngine(all, guardPolicies, all.Schemas())
	if err != nil {
		return nil, SourceStats{}, err
	}
	return engine, SourceStats{Policies: len(guardPolicies), Schemas: len(all.Schemas().Kinds())}, nil
}
