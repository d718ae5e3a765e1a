// Package audit evaluates the objects already stored in a cluster against
// its CRDs and GuardPolicies. It is the one audit core behind `crdguard
// audit` and the webhook's background auditor, so both give every stored
// object the same findings.
//
// Targets resolves the kinds the policies match to resources (a CRD's
// kind at its storage version: how its objects are stored); Lister reads
// them page by page, so memory holds one page, never a whole kind (and
// at most MaxObjects, for callers with a deadline); Lister.Audit checks
// each object as an UPDATE of itself, so transition rules and ratcheting
// behave as they will on the object's next edit. The request rate is the
// client's: callers configure its QPS.
package audit
