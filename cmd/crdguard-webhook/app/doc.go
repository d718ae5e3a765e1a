// Package app is the crdguard-webhook command: Options parsed from flags,
// then Complete, Validate and Run, with the run function injected so tests
// parse and validate flags without starting a server.
//
// Run is a short list of steps, each a method of server that adds one part
// (as cert-manager's webhook assembles its server): the logger, the
// engine's sources (sources.go), the cluster connection, the serving
// certificates and the controller-runtime manager (manager.go), then
// addSource, addAuditor (audit.go), addWebhooks (webhooks.go),
// addManagedRules and addPolicyStatus (cluster_loops.go) and addReadyz
// (readyz.go). TLS comes from an explicit certwatcher, so a certificate
// cert-manager renews is served without a restart. Run returns once the
// context is done and in-flight requests have finished.
package app
