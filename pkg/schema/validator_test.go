package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// widgets compiles the test CRD, which exercises every validation class.
func widgets(t testing.TB) *schema.Registry {
	t.Helper()
	registry, err := schema.RegistryFromFiles(t.Context(), "testdata/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return registry
}

func readObject(t testing.TB, path string) *unstructured.Unstructured {
	t.Helper()
	docs, err := manifest.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("%s: want one valid document, got %d (%v)", path, len(docs), docs)
	}
	return docs[0].Object
}

// TestValidateCases runs every case in testdata/cases: new.yaml is created,
// or, when old.yaml exists, updated from it; want.txt lists the errors, one
// per line, as kube-apiserver prints its causes ("field: message"), then the
// warnings validation records (ratcheted CEL rules), as kubectl prints them.
func TestValidateCases(t *testing.T) {
	registry := widgets(t)
	dirs, err := filepath.Glob("testdata/cases/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 30 {
		t.Fatalf("found %d cases; the corpus is missing", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel() // the registry is shared: this is also a concurrency test
			obj := readObject(t, filepath.Join(dir, "new.yaml"))
			var old *unstructured.Unstructured
			if _, err := os.Stat(filepath.Join(dir, "old.yaml")); err == nil {
				old = readObject(t, filepath.Join(dir, "old.yaml"))
			}
			before := obj.DeepCopy()
			ctx, recorder := schema.RecordWarnings(t.Context())
			errs, err := registry.Validate(ctx, obj, old)
			if err != nil {
				t.Fatal(err)
			}
			if !equalObjects(before, obj) {
				t.Errorf("Validate modified its input")
			}
			var got strings.Builder
			for _, e := range errs {
				got.WriteString(e.Error() + "\n")
			}
			for _, w := range recorder.Warnings() {
				got.WriteString("Warning: " + w + "\n")
			}
			golden.Assert(t, filepath.Join(dir, "want.txt"), []byte(got.String()))
		})
	}
}

func equalObjects(a, b *unstructured.Unstructured) bool {
	ja, _ := a.MarshalJSON()
	jb, _ := b.MarshalJSON()
	return string(ja) == string(jb)
}
