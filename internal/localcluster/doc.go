// Package localcluster holds what everything that runs crdguard against a
// local envtest control plane needs — make demo and the e2e, webhook and
// chart tests: a kubeconfig file for a user, and free local ports.
package localcluster
