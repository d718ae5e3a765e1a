// Package manifest reads Kubernetes manifests — multi-document YAML, JSON and
// List objects — from files, directories and standard input, and remembers
// where every document came from so findings can point at a file and line.
//
// Documents are decoded the way kubectl sends them to the API server: YAML 1.1
// through sigs.k8s.io/yaml (so an unquoted 8.0 is the integer 8 and "yes" is a
// boolean), duplicate keys rejected, integers kept as int64. The block YAML
// kubectl writes takes a fast path that gives the same values and leaves
// everything it is not sure of, and every error, to that decoder.
package manifest
