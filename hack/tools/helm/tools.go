//go:build tools

// Package tools pins helm (helm.sh/helm/v3) for hack/tools/install.sh. It
// has a module of its own because helm's k8s.io/* requirements would
// otherwise be overridden by the v0.37.2 replace lines in hack/tools/go.mod
// (or would move them), and neither binary should build against a client
// library its authors never tested.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
