package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A fresh machine has an empty module cache: Path must download the
// corpus rather than return a path relative to nothing.
func TestPathDownloadsIntoAnEmptyModuleCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("GOMODCACHE", cache)
	// The module cache is read-only by default, which TempDir could not remove.
	t.Setenv("GOFLAGS", "-modcacherw")

	for _, set := range []Set{GatewayAPI, GatewayAPI.Previous()} {
		path, err := set.Path()
		if err != nil {
			t.Fatal(err)
		}
		if !filepath.IsAbs(path) || !strings.HasPrefix(path, cache+string(filepath.Separator)) {
			t.Errorf("%s: path %s is not in the module cache %s", set.Module, path, cache)
		}
		crds, err := filepath.Glob(filepath.Join(path, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if len(crds) == 0 {
			t.Errorf("%s: no CRD files in %s", set.Module, path)
		}
	}
}

func TestPathNamesTheModuleItCannotFind(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  Set
		want string
	}{
		{"not pinned", Set{Module: "example.invalid/crds", Dir: "crds"}, "downloading example.invalid/crds in "},
		{"no such directory", Set{Module: GatewayAPI.Module, Dir: "config/crd/none"}, "sigs.k8s.io/gateway-api has no directory config/crd/none: "},
		{"no such file", Set{Module: ECK.Module, Dir: ECK.Dir, File: "none.yaml"}, "github.com/elastic/cloud-on-k8s/v3 has no file none.yaml in config/crds/v1: "},
		{"a directory for a file", Set{Module: ECK.Module, Dir: "config", File: "crds"}, "github.com/elastic/cloud-on-k8s/v3 has no file crds in config: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, err := tc.set.Path()
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Path() = %q, %v; want an error starting %q", path, err, tc.want)
			}
		})
	}
}

func TestModuleIsADependencyOfCrdguard(t *testing.T) {
	dir, err := Module("github.com/openreports/reports-api")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "config", "crd", "openreports.io_reports.yaml")); err != nil {
		t.Error(err)
	}
}

func TestCRDsReadsTheSet(t *testing.T) {
	crds, err := GatewayAPI.CRDs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) == 0 {
		t.Fatal("no CRDs")
	}
	for _, crd := range crds {
		if crd.Spec.Group != "gateway.networking.k8s.io" {
			t.Errorf("%s: group %s, want gateway.networking.k8s.io", crd.Name, crd.Spec.Group)
		}
	}
}
