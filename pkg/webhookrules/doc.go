// Package webhookrules computes the admission rules of crdguard's webhooks
// from GuardPolicies, so that the kinds a policy guards are listed once, in
// the policy, and never again by hand in the webhook configurations.
//
// Compute maps each policy's kinds to resources through a meta.RESTMapper
// and merges every policy's operations into one sorted rule per API group,
// versions and operations. The result is deterministic: the same policies
// and mappings give an identical value, so a controller writing it back
// causes no update churn. It fails closed: a kind no mapping knows is an
// error naming the policy and the kind, never a rule silently left out.
//
// The CLI (`crdguard webhook-config`) renders the rules offline with
// OfflineMapper (the CRDs and client-go's built-in kinds); the webhook
// (--manage-webhook-rules) writes them into its own configurations with the
// cluster's discovery RESTMapper.
package webhookrules
