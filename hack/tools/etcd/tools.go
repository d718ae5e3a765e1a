//go:build tools

// Package etcd pins the etcd server binary built by ../install.sh. It is a
// separate module because k8s.io/kubernetes v1.37.2 (../go.mod) requires
// go.etcd.io/etcd/server/v3 v3.7.0. The binary's main package is the module
// root, go.etcd.io/etcd/server/v3 (main.go calling etcdmain.Main).
package etcd

import (
	_ "go.etcd.io/etcd/server/v3"
)
