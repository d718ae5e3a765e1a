package schema_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// upstreamCases is kube-apiserver's own ratcheting corpus: the Gateway API
// CRDs with objects the server accepts and objects it rejects.
func upstreamCases(t testing.TB) string {
	t.Helper()
	dir, err := corpus.Module("k8s.io/apiextensions-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "test", "integration", "ratcheting_test_cases")
}

func TestUpstreamParityCorpus(t *testing.T) {
	dir := upstreamCases(t)
	registry, err := schema.RegistryFromFiles(t.Context(), filepath.Join(dir, "crds"))
	if err != nil {
		t.Fatal(err)
	}

	for _, want := range []struct {
		dir   string
		valid bool
		count int // objects with a schema in v0.37.2's corpus, so a moved corpus cannot pass empty
	}{{"valid", true, 57}, {"invalid", false, 29}} {
		t.Run(want.dir, func(t *testing.T) {
			docs, err := manifest.ReadPaths(nil, filepath.Join(dir, want.dir))
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, doc := range docs {
				if doc.Err != nil {
					t.Fatalf("%s: %v", doc.Position(), doc.Err)
				}
				errs, err := registry.Validate(t.Context(), doc.Object, nil)
				var noSchema *schema.NoSchemaError
				if errors.As(err, &noSchema) {
					continue // Namespaces set up the upstream test's cluster
				} else if err != nil {
					t.Fatalf("%s: %v", doc.Position(), err)
				}
				checked++
				if valid := len(errs) == 0; valid != want.valid {
					t.Errorf("%s %s: valid = %v, want %v; errors: %v", doc.Position(), doc.Object.GetName(), valid, want.valid, errs)
				}
			}
			if checked != want.count {
				t.Errorf("checked %d objects, want %d", checked, want.count)
			}
		})
	}
}
