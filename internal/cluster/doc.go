// Package cluster feeds crdguard's webhook its engine from the cluster and
// follows that engine back into the cluster.
//
// It sits one floor above internal/webhook: it stores engines in the
// webhook's EngineHolder and reads the webhook's Routing, and
// internal/webhook never imports it (depguard keeps it so). Everything here
// is a controller-runtime Runnable tested with fake clients and informers,
// not with admission requests:
//
//   - EngineFromFiles (files.go) builds the engine once from --crds and
//     --policies; Source (sources.go) watches GuardPolicies and CRDs
//     through informers, rebuilds after each burst of changes, and never
//     lets an invalid stored GuardPolicy replace its last good version.
//     While a watch is lost it reads GuardPolicies live (source_recovery.go).
//     Every replica runs it: every replica serves requests.
//   - Mode (mode.go, --enforcement) says which rules the webhook evaluates
//     and which it leaves to compiled ValidatingAdmissionPolicies.
//   - ManagedRules (managed_rules.go) keeps the rules of crdguard's own
//     webhook configurations equal to what the engine's policies need, and
//     PolicyStatus (policy_status.go, policy_enforced.go) writes each
//     GuardPolicy's Ready and Enforced conditions. Both are leader-elected
//     and share one loop, followEngines (engine_follower.go): run on every
//     engine change or resync, sooner after an error.
//   - Metrics (metrics.go) expose the engine's size, its rebuilds, the
//     invalid GuardPolicies and the managed rules' syncs.
package cluster
