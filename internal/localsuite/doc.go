// Package localsuite is the TestMain that the suites against a local
// envtest control plane share (test/e2e, test/e2e/webhook,
// test/e2e/selfsignedtls, test/reliability, test/chart): the
// KUBEBUILDER_ASSETS check, a scratch directory, binaries built while the
// control plane starts, a setup bounded in time whose failure exits 1, and
// the control plane stopped however the run ends. What each suite starts
// on top stays in its own TestMain.
package localsuite
