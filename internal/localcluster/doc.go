// Package localcluster holds what everything that runs crdguard against a
// local envtest control plane needs — make demo, make bench and the e2e,
// webhook and chart tests: a kubeconfig file for a user, free local ports,
// the objects of YAML files read and created, namespaces and established
// CRDs, crdguard's webhook registrations, kubectl run as a user, a server
// process started and stopped as a kubelet would, a wait for a server's
// /readyz, its metrics scraped, a poll for what a change should bring, and
// namespace names made from test names.
package localcluster
