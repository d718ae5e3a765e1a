package staticmanifests

import (
	"path/filepath"
	"testing"

	"github.com/crdguard/crdguard/internal/localsuite"
)

// suite builds crdguard; each test starts the control plane it needs,
// since kube-apiserver reads static manifests only at start.
var suite = localsuite.Suite{
	Name:    "static manifests e2e",
	Package: "./test/e2e/staticmanifests/",
	Purpose: "start kube-apiserver with the static manifests crdguard writes",
}

var cluster struct {
	root     string // repository root
	assets   string // KUBEBUILDER_ASSETS
	crdguard string // the CLI under test
	mysqlCRD string // examples/mysql/crd.yaml
}

func TestMain(m *testing.M) { suite.Main(m, setup) }

func setup(s *localsuite.Setup) error {
	cluster.root = s.Root
	cluster.assets = s.Assets
	cluster.mysqlCRD = filepath.Join(s.Root, "examples", "mysql", "crd.yaml")
	cluster.crdguard = s.Build("crdguard", "./cmd/crdguard")
	return nil
}
