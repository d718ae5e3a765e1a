// Package schema validates custom resources exactly as kube-apiserver does.
//
// It loads CustomResourceDefinitions, rejects invalid ones with the API
// server's own CRD validation, and keeps one compiled validator per served
// group/version/kind. A validator runs the API server's decoding steps
// (pruning with unknown-field tracking, null pruning, defaulting, embedded
// ObjectMeta coercion) and then its registry strategy for custom resources:
// OpenAPI v3 schema validation, metadata validation, list-type invariants,
// CEL x-kubernetes-validations with transition rules and the runtime cost
// budget, and validation ratcheting on update. Everything is delegated to
// k8s.io/apiextensions-apiserver; this package only wires it together the way
// the server's custom resource handler does.
//
// Two steps have fast paths, which may only ever say "valid". The OpenAPI
// schema validator the strategy runs is kube-openapi's behind a check
// compiled once per schema: whatever it cannot accept for certain (every
// error, a null, and each quirk of kube-openapi) goes to kube-openapi. And
// the CEL rules run first on their own, with CEL values built on a schema
// adapter that builds each node's properties once: only when the strategy
// without CEL finds nothing and every rule is true within the server's
// cost limits is that the answer; otherwise the whole strategy runs. So
// every error, path, message and warning stays the server's.
// WithFastPathVerification runs both and reports any difference.
//
// One difference is deliberate: with fieldValidation=Strict the server stops
// at unknown fields and reports nothing else; a Validator reports the unknown
// fields together with every error the server would report once they are
// removed, so one run shows every problem.
package schema
