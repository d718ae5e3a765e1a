package schema_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// FuzzValidate decodes arbitrary documents and validates them against the
// test CRD, as a create and as an update of the seed's old object: the
// validator must never panic and never modify its input.
func FuzzValidate(f *testing.F) {
	registry := widgets(f)
	dirs, _ := filepath.Glob("testdata/cases/*")
	for _, dir := range dirs {
		newData, err := os.ReadFile(filepath.Join(dir, "new.yaml"))
		if err != nil {
			f.Fatal(err)
		}
		oldData, _ := os.ReadFile(filepath.Join(dir, "old.yaml"))
		f.Add(newData, oldData)
	}
	f.Fuzz(func(t *testing.T, newData, oldData []byte) {
		newDocs, err := manifest.Read(bytes.NewReader(newData), "new.yaml")
		if err != nil || len(newDocs) == 0 || newDocs[0].Err != nil {
			return
		}
		obj := newDocs[0].Object
		before, _ := obj.MarshalJSON()
		if _, err := registry.Validate(t.Context(), obj, nil); err != nil {
			return // not a Widget
		}
		if oldDocs, err := manifest.Read(bytes.NewReader(oldData), "old.yaml"); err == nil && len(oldDocs) > 0 && oldDocs[0].Err == nil {
			old := oldDocs[0].Object
			if old.GroupVersionKind() == obj.GroupVersionKind() {
				_, _ = registry.Validate(t.Context(), obj, old)
			}
		}
		if after, _ := obj.MarshalJSON(); !bytes.Equal(before, after) {
			t.Fatalf("Validate modified its input:\n%s\n%s", before, after)
		}
	})
}
