// Package reliability proves that crdguard-webhook keeps serving correct
// verdicts under load, through changes and failures around it, and against
// hostile input. It has no non-test code; everything runs on loopback.
//
// TestMain starts kube-apiserver v1.37.2 and etcd (envtest, binaries from
// KUBEBUILDER_ASSETS; the tests fail without it), installs the MySQL
// example CRD and the GuardPolicy CRD, creates examples/mysql/policy.yaml
// as a GuardPolicy, runs the webhook in-process over TLS (cmd/crdguard-webhook/app.Run
// watching policies and CRDs from the cluster), registers /validate for
// MySQLClusters (and deliberately not /validate-policy), and builds the
// crdguard-webhook binary for the tests that signal it or read its logs.
//
// The tests, one file each:
//
//   - TestLoad: 20,000 AdmissionReviews (good, unsafe and bad.yaml) at
//     concurrency 32 over keep-alive TLS: every verdict right, no error,
//     goroutines back to where they were (goleak), heap growth bounded;
//   - TestHostileInput: malformed JSON, wrong or missing content type, an
//     empty body, a body over controller-runtime's 7 MiB bound, JSON nested
//     10,000 deep, a review without a request, CREATE without object,
//     UPDATE without oldObject, an undecodable object: each a review with
//     allowed false, its exact 4xx code and message; an unknown kind is
//     allowed; the server keeps serving and keeps no memory;
//   - TestGracefulShutdown, TestShutdownGracePeriod: SIGTERM to the binary
//     with requests in flight closes the listener at once (connections
//     refused), every in-flight request gets its verdict and the process
//     exits 0; a request that never finishes does not hold it past
//     --shutdown-timeout;
//   - TestPolicyChurn: a GuardPolicy updated 100 times while requests flow:
//     no error, no request sees an older version after a newer one, the
//     final version is enforced, and neither an update the API server
//     rejects nor a stored version crdguard cannot compile replaces it;
//   - TestAPIServerRestart: kube-apiserver stopped and started again (same
//     etcd): the webhook serves meanwhile, admission through the API
//     server works again and a GuardPolicy created afterwards is enforced,
//     without restarting the webhook;
//   - TestTLSVersions, TestHTTP2, TestLogsKeepSecrets: TLS 1.0 and 1.1
//     refused; HTTP/2 negotiated only with --enable-http2; at the default
//     log level, no object content or Secret data in the binary's logs.
package reliability
