//go:build tools

// Package tools pins the binaries built by install.sh so that `go mod tidy`
// keeps them in go.mod. CRD corpus modules live in ./corpora (own module).
// etcd lives in ./etcd (its own module): k8s.io/kubernetes v1.37.2 requires
// go.etcd.io/etcd/server/v3 v3.7.0, so v3.6.16 cannot share this build list.
package tools

import (
	_ "github.com/yannh/kubeconform/cmd/kubeconform"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
