// Package auditor is the webhook's background audit (--audit): a manager
// Runnable that, on the elected leader only, evaluates every stored object
// the cluster's GuardPolicies match and writes what it finds as OpenReports
// (openreports.io/v1alpha1) Reports, one per namespace, and a ClusterReport
// for cluster-scoped objects: what Policy Reporter and other PolicyReport
// readers show.
//
// Objects are found, listed and evaluated by pkg/audit, the same core
// `crdguard audit` runs, with the engine the webhook serves requests with,
// so the reports, the CLI and admission agree on every object.
//
//   - auditor.go: when to run (every interval, and when the webhook's engine
//     is rebuilt after a GuardPolicy or CRD change) and one run.
//   - findings.go: an object's violations as report results, grouped by
//     object, policy and rule, bounded per report.
//   - reports.go: writing reports in place, deleting the ones left empty.
//   - status.go: each audited GuardPolicy's status.audit.
//   - metrics.go: crdguard_audit_violations and crdguard_audit_duration_seconds.
package auditor
