package diff

import (
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// A CRD second in its file, after a comment and another document, so that
// lines within the document and within the file differ.
const linesYAML = `# leading comment
apiVersion: v1
kind: ConfigMap
metadata: {name: x}
---
# comment before the CRD
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema: &schema
        type: object
        properties:
          spec:
            type: object
            properties:
              "a.b": {type: string}
              replicas:
                type: integer
                maximum: 5
              rules:
                type: string
                x-kubernetes-validations:
                - rule: self != ''
                - rule: size(self) < 10
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: *schema
`

func TestLineIndex(t *testing.T) {
	docs, err := manifest.Read(strings.NewReader(linesYAML), "crds.yaml")
	if err != nil || len(docs) != 2 {
		t.Fatalf("read: %v, %d documents", err, len(docs))
	}
	if docs[1].Line != 7 {
		t.Fatalf("CRD document starts at line %d, want 7", docs[1].Line)
	}
	idx := NewLineIndex(docs[1])
	const v0 = "spec.versions[0].schema.openAPIV3Schema."
	for _, c := range []struct {
		path, version string
		want          int
	}{
		{"metadata.name", "", 10},
		{v0 + "properties.spec.properties.replicas.maximum", "v1beta1", 26},
		{v0 + "properties.spec.properties.replicas", "v1beta1", 24},
		// A bracketed key holding a dot, as field.Path prints it.
		{v0 + "properties.spec.properties[a.b].type", "v1beta1", 23},
		{v0 + "properties.spec.properties.rules.x-kubernetes-validations[1]", "v1beta1", 31},
		// A removed node: its nearest ancestor still in the document.
		{v0 + "properties.spec.properties.legacy", "v1beta1", 22},
		{v0 + "properties.spec.properties.rules.x-kubernetes-validations[7]", "v1beta1", 29},
		// Through an alias: the key that uses it, and within it the
		// anchored nodes, which are written once.
		{"spec.versions[1].schema.openAPIV3Schema", "v1", 36},
		{"spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.replicas.maximum", "v1", 26},
		// The old CRD's index of a version this document has elsewhere or
		// not at all: spec.versions, not an unrelated version.
		{"spec.versions[1].served", "v1beta1", 12},
		{"spec.versions[0]", "v2", 12},
		{"spec.versions[1].storage", "v1", 34},
		{"spec.versions[9]", "", 12},
		{"", "", 7},
	} {
		if got := idx.Line(c.path, c.version); got != c.want {
			t.Errorf("line(%q, %q) = %d, want %d", c.path, c.version, got, c.want)
		}
	}
}

func TestLineIndexJSONAndFallbacks(t *testing.T) {
	const crdJSON = `{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.example.com"},
  "spec": {
    "versions": [
      {"name": "v1", "served": true}
    ]
  }
}
`
	docs, err := manifest.Read(strings.NewReader(crdJSON), "crd.json")
	if err != nil || len(docs) != 1 {
		t.Fatalf("read: %v, %d documents", err, len(docs))
	}
	// JSON is YAML: its nodes have lines too.
	if got := NewLineIndex(docs[0]).Line("spec.versions[0].served", "v1"); got != 7 {
		t.Errorf("JSON: line = %d, want 7", got)
	}

	// The items of a List share the List's text, so a field of one is at
	// the item's line.
	const list = "# x\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n"
	docs, err = manifest.Read(strings.NewReader(list), "list.yaml")
	if err != nil || len(docs) != 1 {
		t.Fatalf("read list: %v, %d documents", err, len(docs))
	}
	if got := NewLineIndex(docs[0]).Line("metadata.name", ""); got != 5 {
		t.Errorf("List item: line = %d, want the item's line 5", got)
	}
	// No index (a finding with nothing to locate): no line, so the
	// result's own line is used.
	var none *LineIndex
	if got := none.Line("metadata.name", ""); got != 0 {
		t.Errorf("nil index: line = %d, want 0", got)
	}
}
