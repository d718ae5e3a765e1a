package corpus

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The CRD sets, each a directory inside its module.
var (
	CertManager        = Set{Module: "github.com/cert-manager/cert-manager", Dir: "deploy/crds"}
	GatewayAPI         = Set{Module: "sigs.k8s.io/gateway-api", Dir: "config/crd/standard"}
	PrometheusOperator = Set{Module: "github.com/prometheus-operator/prometheus-operator", Dir: "example/prometheus-operator-crd"}
)

// Set is a directory of CRDs in a Go module.
type Set struct {
	Module, Dir string
	// previous selects the release pinned in hack/tools/corpora-previous
	// rather than hack/tools/corpora: one go.mod selects a single version
	// of a module, and crdguard diff needs two.
	previous bool
}

// Previous is the set at the release before, pinned in
// hack/tools/corpora-previous/go.mod.
func (s Set) Previous() Set {
	s.previous = true
	return s
}

// moduleDir is the directory of the go.mod that pins the set's release.
func (s Set) moduleDir() string {
	dir := "corpora"
	if s.previous {
		dir = "corpora-previous"
	}
	return filepath.Join(Root(), "hack", "tools", dir)
}

// Path downloads the module if needed and returns the directory's path.
func (s Set) Path() (string, error) {
	cmd := exec.Command("go", "list", "-m", "-mod=mod", "-f", "{{.Dir}}", s.Module)
	cmd.Dir = s.moduleDir()
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if exit, ok := err.(*exec.ExitError); ok {
			stderr = strings.TrimSpace(string(exit.Stderr))
		}
		return "", fmt.Errorf("locating %s: %v %s", s.Module, err, stderr)
	}
	return filepath.Join(strings.TrimSpace(string(out)), s.Dir), nil
}

// Root is the repository root, found from this file's location.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
