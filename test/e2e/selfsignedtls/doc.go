// Package selfsignedtls proves crdguard-webhook's self-signed TLS mode
// (internal/selfsigned, --tls-mode=self-signed) against a real
// kube-apiserver. It has no non-test code.
//
// TestMain starts kube-apiserver v1.37.2 and etcd (envtest, binaries from
// KUBEBUILDER_ASSETS) and installs the MySQL example CRD. The tests:
//
//   - TestSelfSignedCreateAndServe: a Manager creates its Secret, serves its
//     certificate and injects the CA into every webhook of its
//     configurations; a TLS client trusting only that bundle connects;
//   - TestSelfSignedTwoReplicas: two Managers on one missing Secret: one
//     creates it, the other serves theirs; a forced renewal is done once
//     and both serve it;
//   - TestSelfSignedReinjection: a caBundle reset (as a helm upgrade does)
//     and a configuration created later are injected;
//   - TestSelfSignedStartOver: a deleted Secret, and one whose CA is
//     garbage, are started over with a new CA, injected and served;
//   - TestSelfSignedCARotation: a forced CA rotation, observed step by
//     step: both CAs in the bundle and the configurations while the old
//     one still signs, and a client holding only the bundle from before the
//     rotation keeps verifying until the new CA signs; then the old CA
//     leaves the bundle;
//   - TestSelfSignedWebhook: crdguard-webhook in-process (cmd/crdguard-webhook/app.Run
//     with --tls-mode=self-signed, started once per test binary: Run
//     registers process-wide metrics) issues its certificate and injects its
//     CA into the configurations it is registered with (clientConfig.url,
//     no caBundle); the API server calls it and examples/mysql/unsafe.yaml
//     is denied; a forced serving renewal and a forced CA rotation while
//     requests flow through the API server fail none of them; the
//     certificate-expiry metric follows the certificate served.
package selfsignedtls
