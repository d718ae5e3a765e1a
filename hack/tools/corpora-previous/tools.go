//go:build tools

// Package corpora pins the releases before those in ../corpora of the modules
// whose CRD YAML is used as test corpora, so that crdguard diff runs on real
// CRD changes between two releases. It is its own module because one go.mod
// selects a single version of a module. As in ../corpora, only the YAML is
// used; these light packages keep `go mod tidy` from dropping the
// requirements.
package corpora

import (
	_ "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	_ "github.com/prometheus-operator/prometheus-operator/pkg/versionutil"
	_ "sigs.k8s.io/gateway-api/apis/v1"
)
