package schema_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/manifest"
	crdschema "github.com/crdguard/crdguard/pkg/schema"
)

// TestKeyPathReadsBack checks KeyPath against the reader that turns a
// reported path back into a line: every key must come back as one step.
func TestKeyPathReadsBack(t *testing.T) {
	const doc = `apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    app: plain
    example.com/tier: dotted
    team/owner: slashed
    "x]y": closing
    "d[0]": subscript
    "": empty
`
	docs, err := manifest.Read(strings.NewReader(doc), "cm.yaml")
	if err != nil || len(docs) != 1 {
		t.Fatalf("read: %v, %d documents", err, len(docs))
	}
	positions := docs[0].FieldPositions()
	annotations := field.NewPath("metadata", "annotations")
	for _, c := range []struct{ key, path, value string }{
		{"app", "metadata.annotations.app", "plain"},
		{"example.com/tier", "metadata.annotations[example.com/tier]", "dotted"},
		{"team/owner", "metadata.annotations.team/owner", "slashed"},
		{"x]y", "metadata.annotations[x]y]", "closing"},
		{"d[0]", "metadata.annotations[d[0]]", "subscript"},
		{"", "metadata.annotations[]", "empty"},
	} {
		path := crdschema.KeyPath(annotations, c.key).String()
		if path != c.path {
			t.Errorf("KeyPath(%q) = %q, want %q", c.key, path, c.path)
		}
		if got, ok := positions.Scalar(path); !ok || got != c.value {
			t.Errorf("Scalar(%q) = %q, %t; want %q", path, got, ok, c.value)
		}
	}
	if got := crdschema.KeyPath(nil, "metadata").Child("name").String(); got != "metadata.name" {
		t.Errorf("at the root: %q, want metadata.name", got)
	}
}
