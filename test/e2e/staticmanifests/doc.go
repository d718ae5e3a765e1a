// Package staticmanifests proves `crdguard vap --static-manifests` on a
// real kube-apiserver v1.37.2 (envtest, binaries from KUBEBUILDER_ASSETS).
// It has no non-test code.
//
// TestStaticManifests writes the static manifests of the MySQL example
// policy, starts kube-apiserver with the AdmissionConfiguration crdguard
// wrote as --admission-control-config-file, and shows the compiled policy
// deny the first MySQLCluster created, with no policy object in the API;
// deleting the policy and its binding through the API finds nothing,
// creating one of the same name is refused, and the next unsafe object is
// denied again.
//
// It has a control plane of its own: kube-apiserver reads the
// AdmissionConfiguration only at start.
package staticmanifests
