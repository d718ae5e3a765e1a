// Package localcluster holds what everything that runs crdguard against a
// local envtest control plane needs — make demo and the e2e, webhook and
// chart tests: a kubeconfig file for a user, free local ports, the objects
// of YAML files created, crdguard's webhook registrations, and a wait for
// a server's /readyz.
package localcluster
