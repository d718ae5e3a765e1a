// Package diff compares an old and a new version of a CustomResourceDefinition
// and classifies every difference by what it does to the objects already
// stored and to the clients written against the old schema.
//
// It follows crdify's shape: one check per file, an explicit registry
// (registry.go) that panics on a duplicate name, checks that only report a
// change's impact (never whether the run fails: that is Config's job), and
// a final catch-all, "unclassified", that reports every difference no check
// explained. Checks claim the fields they explain (Check.Claims); the runner
// walks both CRDs generically and reports any differing field nobody claimed,
// so a new CRD field or an overlooked schema keyword fails closed instead of
// passing silently.
//
// Replay is the other half: what the new CRD does to one stored object.
// `crdguard diff --objects` and the webhook's /validate-crd both call it,
// so a file of objects and a cluster's stored ones get the same findings.
package diff
