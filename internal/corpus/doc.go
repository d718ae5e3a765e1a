// Package corpus finds the real-world CRDs that tests and benchmarks run
// against. They ship inside Go modules pinned in hack/tools/corpora/go.mod,
// so they come from the Go module proxy like any dependency and never from
// copies in this repository. The release before each, which crdguard diff
// compares with, is pinned in hack/tools/corpora-previous/go.mod (Set.Previous).
package corpus
