package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestSameLibrariesAsAPIServer: crdguard gives the server's verdicts only
// while it links the validation libraries at the versions kube-apiserver
// (built by hack/tools from k8s.io/kubernetes) is built with. A dependency
// that raises one of them — cel-go changes CEL cost and behaviour between
// minor versions — must fail here, not in a cluster.
func TestSameLibrariesAsAPIServer(t *testing.T) {
	product := moduleVersions(t, filepath.Join(cluster.root, "go.mod"))
	server := moduleVersions(t, filepath.Join(cluster.root, "hack", "tools", "go.mod"))
	for _, path := range []string{
		"github.com/google/cel-go",
		"k8s.io/apiextensions-apiserver",
		"k8s.io/apiserver",
		"k8s.io/apimachinery",
		"k8s.io/kube-openapi",
		"sigs.k8s.io/structured-merge-diff/v6",
	} {
		if product[path] == "" || product[path] != server[path] {
			t.Errorf("%s: crdguard has %q, kube-apiserver is built with %q", path, product[path], server[path])
		}
	}
}

// moduleVersions reads the version of each module a go.mod selects, its
// replacements applied.
func moduleVersions(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	versions := map[string]string{}
	for _, r := range f.Require {
		versions[r.Mod.Path] = r.Mod.Version
	}
	for _, r := range f.Replace {
		if r.New.Version != "" {
			versions[r.Old.Path] = r.New.Version
		}
	}
	return versions
}
