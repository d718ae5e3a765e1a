// Package webhook proves the crdguard webhook against a real kube-apiserver
// and the real kubectl. It has no non-test code.
//
// TestMain starts kube-apiserver v1.37.2 and etcd (envtest, binaries from
// KUBEBUILDER_ASSETS), installs the MySQL example CRD, generates a CA and a
// serving certificate for 127.0.0.1, installs the GuardPolicy CRD and
// creates examples/mysql/policy.yaml and testdata/frozen-namespaces.yaml as
// GuardPolicy objects, runs crdguard-webhook in-process over TLS
// (cmd/crdguard-webhook/app.Run without --crds or --policies: both are watched from
// the cluster), waits until it is ready, and registers a
// ValidatingWebhookConfiguration (MySQLClusters to /validate, GuardPolicies
// to /validate-policy) and a MutatingWebhookConfiguration that call it by
// clientConfig.url with the CA as caBundle and sideEffects None.
// Users: an admin for setup, alice (group dba, an approver of the example
// policy) and bob (no approver); all are system:masters so RBAC never
// decides, only the webhook.
//
// The tests:
//
//   - TestCreate: a valid MySQLCluster is created; unsafe.yaml is denied
//     with an Invalid error whose causes are every field path;
//   - TestKubectlDryRun: the real `kubectl apply --dry-run=server` shows the
//     denial (every path), exits non-zero, prints the Warn finding as a
//     Warning: line, and neither a denied nor an accepted dry run stores
//     anything;
//   - TestDefaultsAndDelete: the default cpu limit is on the stored object;
//     deleting delete/ephemeral.yaml is denied, an approval of the delete
//     survives the update that adds it, bob cannot use it, alice can;
//   - TestUpdate: update/new.yaml over update/old.yaml is denied with every
//     transition; update/approved.yaml is denied for bob, accepted for
//     alice with the annotation stripped and crdguard.dev/last-approval
//     recorded, and the record does not approve the next update;
//   - TestServingCertificateRenewal: TLS 1.2 floor, no HTTP/2, and a
//     certificate renewed on disk is served without a restart;
//   - TestMetricsEndpoint: /metrics counts what the API server sent;
//   - TestNamespaceSelector: namespace labels are read from the cluster and
//     a label change takes effect without a restart;
//   - TestParity: `crdguard validate` and the cluster give every example
//     object the same verdict on create, on the example updates and on
//     delete;
//   - TestPolicyEdit: mysql-safety edited to Warn and back takes effect
//     without a restart;
//   - TestCRDUpdate: an enum value added to the MySQL CRD is accepted by
//     the webhook's schema without a restart;
//   - TestInvalidPolicyRejected: /validate-policy denies a GuardPolicy
//     crdguard cannot compile, naming every field path;
//   - TestInvalidStoredPolicy: an invalid GuardPolicy that is stored anyway
//     is reported in crdguard_policy_invalid and its last good version
//     stays in force until it is fixed;
//   - TestCRDGuard: with /validate-crd registered for a test-only CRD
//     (labelled crdguard.dev/e2e-guarded; the webhook runs with
//     --guard-crds, alice and the service account
//     guard-e2e-releases/releaser as CRD approvers), removing a field and
//     narrowing an enum are denied at their paths, adding an optional field
//     is accepted, lowering a maximum below a stored object's value is
//     denied naming that object (also when bob approves), the same update
//     approved by alice is accepted, and so is one the releaser service
//     account approves with a token of its own, but not one a service
//     account of the same name in another namespace approves;
//   - TestCRDReplayParity: `crdguard diff --objects` and /validate-crd
//     (listing in pages of two), given the same CRD change and the same
//     stored objects, give the same verdict and name the same objects,
//     field paths, classes and messages: a root CEL rule (rejected on
//     update), a lowered maximum (ratchet-tolerated), a removed field
//     (pruned) and a safe change.
//
// It has its own control plane rather than the e2e package's: there, the
// MySQL example is compared against the server's schema verdict alone, and
// a webhook on its kinds would change that verdict.
package webhook
