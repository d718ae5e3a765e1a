// Package policies evaluates admission requests against GuardPolicies and
// CRD schemas. Engine.Evaluate is the one decision path: the webhook, the CLI
// and operators' own tests call it the same way, so they get the same
// verdict.
//
// Each rule kind lives in its own file and is listed in registry.go. A rule
// reports problems as field errors; it never decides whether they deny, warn
// or audit: enforcement comes from the policy and is applied by the engine.
package policies
