// Package app is the crdguard-webhook command: Options parsed from flags,
// then Complete, Validate and Run, with the run function injected so tests
// parse and validate flags without starting a server.
//
// Run starts a controller-runtime manager with the webhook server (TLS from
// an explicit certwatcher, so a certificate cert-manager renews is served
// without a restart), /healthz and /readyz, and metrics; it returns once
// the context is done and in-flight requests have finished.
package app
