// Package gotypes proves that what a Go API type serialises is what its CRD
// schema keeps.
//
// controller-gen writes a CRD's schema from Go types, but it reads struct tags
// differently from encoding/json in a few places (an empty tag name or
// ",inline" on a named field is inlined by controller-gen and written under
// the Go field name by encoding/json; json:"-" and unexported fields are
// skipped silently), and a checked-in CRD drifts from the types it was
// generated from. The result is a field the controller reads but the API
// server prunes, or never validates.
//
// Two proofs are offered, and they agree:
//
//   - Static: Load finds the CRD root types of Go packages with go/packages
//     and go/types, computes the JSON document each one serialises to under
//     encoding/json's own rules (shape.go), and Lint walks it together with
//     the CRD's structural schema, running the checks in registry.go. Every
//     Finding carries the Go file:line of the field, the JSON path, a severity
//     and a fix hint.
//   - Runtime: RoundTrip (for an operator's own tests) fills a Go object with
//     non-zero values, marshals it with encoding/json and hands it to the API
//     server's decoding and validation through pkg/schema, reporting every path
//     the server drops (pruning with unknown-field tracking) or rejects as the
//     wrong type.
//
// The checks follow kube-api-linter's shape: one check per file, each with a
// doc string and a testdata package whose expected findings are written as
// "// want" comments next to the code that triggers them. Schema handling is
// never re-implemented: structural schemas come from
// k8s.io/apiextensions-apiserver and the runtime proof runs the API server's
// own pruning and validation.
package gotypes
