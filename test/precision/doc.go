// Package precision measures how often crdguard is right on real
// operators' released code and CRDs, fetched from the Go module proxy at the
// releases pinned in hack/tools/operators.txt.
//
// Every finding that would fail a CI run (a breaking diff change, an
// error-level lint finding) is listed in a golden file under testdata/,
// labelled by a human: true when it is a real defect a user would hit,
// false when it is a false alarm, each with a one-line reason. The tests
// fail when a finding appears that nobody labelled, when a labelled one is
// no longer reported, when a true one is lost, and when precision (true
// findings over all) falls below its target. `go test -update` merges the
// current findings into the golden files, keeping every label and writing
// new findings as "unlabelled", which fails until someone labels them.
package precision
