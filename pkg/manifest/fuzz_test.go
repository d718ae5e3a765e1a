package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the reader: it must never panic, and
// every document must carry either an object with apiVersion and kind or an
// error.
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob("../../examples/*/*.yaml")
	more, _ := filepath.Glob("../schema/testdata/cases/*/*.yaml")
	for _, p := range append(seeds, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [1, {kind: X}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := Read(bytes.NewReader(data), "fuzz.yaml")
		if err != nil {
			return
		}
		for _, d := range docs {
			if (d.Object == nil) == (d.Err == nil) {
				t.Fatalf("document %d: object %v, error %v: exactly one must be set", d.Index, d.Object, d.Err)
			}
			if d.Object != nil && (d.Object.GetAPIVersion() == "" || d.Object.GetKind() == "") {
				t.Fatalf("document %d: decoded without apiVersion or kind", d.Index)
			}
			if d.Line < 1 {
				t.Fatalf("document %d: line %d", d.Index, d.Line)
			}
		}
	})
}
