//go:build tools

// Package corpora pins modules whose CRD YAML is used as test corpora.
// Only their YAML is used; these light packages keep `go mod tidy` from
// dropping the requirements. This is a separate module because
// cert-manager raises shared dependencies (cel-go, grpc, x/crypto, ...)
// above the versions k8s.io/kubernetes v1.37.2 is built with.
package corpora

import (
	_ "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	_ "github.com/elastic/cloud-on-k8s/v3/pkg/utils/math"
	_ "github.com/mongodb/mongodb-kubernetes-operator/pkg/util/constants"
	_ "github.com/prometheus-operator/prometheus-operator/pkg/versionutil"
	_ "sigs.k8s.io/gateway-api/apis/v1"
)
