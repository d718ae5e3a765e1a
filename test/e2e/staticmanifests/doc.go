// Package staticmanifests proves `crdguard vap --static-manifests` on a
// real kube-apiserver v1.37.2 (envtest, binaries from KUBEBUILDER_ASSETS).
// It has no non-test code. Each test starts a control plane of its own:
// kube-apiserver reads the AdmissionConfiguration, and the manifests it
// names, only at start.
//
//   - TestStaticManifests: the MySQL example policy without its approvers
//     and its defaults rule, whose every rule compiles. kube-apiserver,
//     started with the AdmissionConfiguration crdguard wrote, denies the
//     first MySQLCluster created with the compiled policy's message while
//     the API lists no policy; deleting the policy and its binding through
//     the API finds nothing, creating a policy of the same name is
//     refused, and the next unsafe object is denied again.
//   - TestStaticManifestsWithWebhook: the whole example policy, with the
//     webhook configurations of the rules that stay with the webhook,
//     calling crdguard-webhook (--enforcement=vap, in-process) by URL. The
//     stored object gets the default cpu limit (the static
//     MutatingAdmissionPolicy and the webhook both set it), the unsafe
//     object is denied by the static policy, and deleting a cluster whose
//     volumes go with it is denied by the webhook the static configuration
//     calls, also after attempts to delete that configuration and the
//     MutatingAdmissionPolicy through the API.
package staticmanifests
