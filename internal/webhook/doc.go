// Package webhook turns AdmissionReviews into pkg/policies requests and
// their results back into admission responses.
//
// It holds the user logic of the crdguard webhook server only: transport
// (TLS, the HTTP server, certificates) lives in cmd/webhook, and decisions
// live in pkg/policies. Requests are built as `crdguard validate` builds
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
// replace the policies and schemas without a restart: EngineFromFiles
// (--policies, --crds) once at start, or ClusterSource (sources.go), which
// watches GuardPolicies and CRDs through informers, rebuilds after each
// burst of changes, and never lets an invalid stored GuardPolicy replace its
// last good version. Metrics (metrics.go)
// count /validate's decisions, findings and approvals, and expose the
// engine's size and the serving certificate's expiry.
package webhook
