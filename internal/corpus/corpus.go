package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// The CRD sets, each a directory or a file inside its module.
var (
	CertManager        = Set{Module: "github.com/cert-manager/cert-manager", Dir: "deploy/crds"}
	GatewayAPI         = Set{Module: "sigs.k8s.io/gateway-api", Dir: "config/crd/standard"}
	PrometheusOperator = Set{Module: "github.com/prometheus-operator/prometheus-operator", Dir: "example/prometheus-operator-crd"}
	// ECK's release CRDs are all-crds.yaml: the generated ones beside it
	// in resources/ still hold the pod template schemas that the release
	// patches out.
	ECK              = Set{Module: "github.com/elastic/cloud-on-k8s/v3", Dir: "config/crds/v1", File: "all-crds.yaml"}
	MongoDBCommunity = Set{Module: "github.com/mongodb/mongodb-kubernetes-operator", Dir: "config/crd/bases"}
)

// Set is a directory of CRDs in a Go module, or one file of it.
type Set struct {
	Module, Dir string
	// File, when set, is the one file of Dir that holds the set, for a
	// directory that holds other manifests too. Default: all of Dir.
	File string
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
	return filepath.Join(RepositoryRoot(), "hack", "tools", dir)
}

// Path downloads the module if needed and returns the path of the set:
// its directory, or its File.
func (s Set) Path() (string, error) {
	dir, err := moduleSource(s.moduleDir(), s.Module)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, s.Dir)
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		return "", fmt.Errorf("%s has no directory %s: %s", s.Module, s.Dir, dir)
	}
	if s.File == "" {
		return path, nil
	}
	path = filepath.Join(path, s.File)
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s has no file %s in %s: %s", s.Module, s.File, s.Dir, dir)
	}
	return path, nil
}

// CRDs reads the set's CRDs as crdguard reads CRD files, validated as the
// API server validates them. A set that holds none is an error: a
// benchmark or test over an empty set would measure or check nothing.
func (s Set) CRDs(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	path, err := s.Path()
	if err != nil {
		return nil, err
	}
	docs, err := manifest.ReadPaths(nil, path)
	if err != nil {
		return nil, err
	}
	crds, err := schema.CRDsFromDocuments(ctx, docs)
	if err != nil {
		return nil, err
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("no CRDs in %s", path)
	}
	return crds, nil
}

// Module downloads a dependency of crdguard's own go.mod if needed and
// returns its source directory, for tests that read files shipped in a
// module (kube-apiserver's test corpora, the OpenReports CRDs).
func Module(module string) (string, error) {
	return moduleSource(RepositoryRoot(), module)
}

// moduleSource returns the source directory of module as selected by the
// go.mod in dir. It asks `go mod download`, which fetches the module when
// the module cache does not hold it yet: `go list -m` would print an empty
// Dir instead, and a relative path would be taken for the module.
func moduleSource(dir, module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	// On failure go mod download still prints the module with its Error.
	var downloaded struct{ Dir, Error string }
	if err := json.Unmarshal(out, &downloaded); err != nil {
		return "", fmt.Errorf("downloading %s in %s: %w %s", module, dir, errors.Join(runErr, err), strings.TrimSpace(stderr.String()))
	}
	switch {
	case downloaded.Error != "":
		return "", fmt.Errorf("downloading %s in %s: %s", module, dir, downloaded.Error)
	case runErr != nil:
		return "", fmt.Errorf("downloading %s in %s: %w %s", module, dir, runErr, strings.TrimSpace(stderr.String()))
	case downloaded.Dir == "":
		return "", fmt.Errorf("downloading %s in %s: go mod download gave no directory", module, dir)
	}
	return downloaded.Dir, nil
}

// RepositoryRoot is the repository root, found from this file's location.
func RepositoryRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
