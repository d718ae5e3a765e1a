//go:build tools

// Package tools pins controller-gen, which generates the GuardPolicy CRD
// and deepcopy functions. It has its own module so its k8s.io versions
// never move the ones kube-apiserver is built with.
package tools

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
