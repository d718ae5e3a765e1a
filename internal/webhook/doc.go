// Package webhook turns AdmissionReviews into pkg/policies requests and
// their results back into admission responses.
//
// It holds admission only: transport (TLS, the HTTP server, certificates)
// lives in cmd/crdguard-webhook, decisions live in pkg/policies, and what runs
// against the cluster in the background lives in internal/cluster. Requests are built as `crdguard validate` builds
// them, so the CLI and the webhook give every object the same verdict; the
// one difference is that the webhook leaves decoding and schema validation
// to the API server, which does both before its validating webhooks run.
//
//   - /validate (Validator): CREATE, UPDATE and DELETE. Deny findings are one
//     422 Invalid status with every cause; Warn findings are admission
//     warnings; Audit findings are audit annotations; a request that cannot be
//     evaluated is a 500.
//   - /mutate (Mutator): CREATE and UPDATE. The engine's patches (policy
//     defaults), and the record of an approval the engine admitted: one
//     that lifted a denial is consumed, one that lifted none stays for a
//     DELETE (see approval.go).
//   - /validate-policy (PolicyValidator): CREATE and UPDATE of GuardPolicies.
//     A policy crdguard cannot compile is denied (422) with every field
//     path, as `crdguard validate --policies` rejects the file.
//   - /validate-crd (CRDValidator, crd.go; opt-in, --guard-crds): UPDATE of
//     guarded CustomResourceDefinitions. Breaking changes (pkg/schema/diff)
//     no approver approved, and every finding of diff.Replay on the stored
//     objects (listed live through audit.Lister, bounded in count and
//     time), are one bounded 422 Invalid status; the full report is
//     logged. A listing that fails without a breaking change to deny is a
//     500.
//
// The engine is read from an EngineHolder on every request, so a source can
// replace the policies and schemas without a restart. The sources, and the
// loops that follow the engine into the cluster (managed webhook rules,
// GuardPolicy status), live one floor up in internal/cluster, which
// imports this package and never the reverse. Metrics (metrics.go) count
// /validate's decisions, findings and approvals, and expose the serving
// certificate's expiry.
package webhook
