// Package policies evaluates admission requests against GuardPolicies and
// CRD schemas. Engine.Evaluate is the one decision path: the webhook, the CLI
// and operators' own tests call it the same way, so they get the same
// verdict.
//
// The rule kinds are in internal/rules, one per file, listed in its
// registry.go. A rule reports problems as field errors; it never decides
// whether they deny, warn or audit: enforcement comes from the policy and is
// applied by the engine. The vap package compiles the same rules to
// ValidatingAdmissionPolicies.
package policies
