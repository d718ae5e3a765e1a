package app

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
	idx := newLineIndex(docs[1])
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
		if got := idx.line(c.path, c.version); got != c.want {
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
	if got := newLineIndex(docs[0]).line("spec.versions[0].served", "v1"); got != 7 {
		t.Errorf("JSON: line = %d, want 7", got)
	}

	// The items of a List share the List's text, so a field of one is at
	// the item's line.
	const list = "# x\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n"
	docs, err = manifest.Read(strings.NewReader(list), "list.yaml")
	if err != nil || len(docs) != 1 {
		t.Fatalf("read list: %v, %d documents", err, len(docs))
	}
	if got := newLineIndex(docs[0]).line("metadata.name", ""); got != 5 {
		t.Errorf("List item: line = %d, want the item's line 5", got)
	}
	// No index (a finding with nothing to locate): no line, so the
	// result's own line is used.
	var none *lineIndex
	if got := none.line("metadata.name", ""); got != 0 {
		t.Errorf("nil index: line = %d, want 0", got)
	}
}

// TestDiffLinesFromStdinAndRemovedCRDs checks the sources without a file to
// reread: NEW from standard input still gets per-node lines, and a removed
// CRD points into the old file.
func TestDiffLinesFromStdinAndRemovedCRDs(t *testing.T) {
	r := crdguard(t, readFile(t, diffFile("new-safe.yaml")), "diff", "-o", "json", diffFile("old.yaml"), "-")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	lines := map[string]int{}
	for _, v := range decodeReport(t, r).Results[0].Violations {
		lines[v.Rule] = v.Line
	}
	// new-safe.yaml: description at 19, size at 24, replicas at 21.
	if lines["description-changed"] != 19 || lines["field-added"] != 24 || lines["maximum-changed"] != 21 {
		t.Errorf("stdin lines = %v", lines)
	}

	r = crdguard(t, "", "diff", "-o", "json", diffFile("old-dir"), diffFile("new-dir"))
	for _, res := range decodeReport(t, r).Results {
		if res.Name == "gears.example.com" && (res.Source != "testdata/diff/old-dir/gears.yaml" || res.Violations[0].Line != 5) {
			t.Errorf("removed CRD: %s line %d, want its metadata.name in the old file at line 5", res.Source, res.Violations[0].Line)
		}
	}
}

// TestDiffLinesAcrossVersions checks a finding about one version pointing
// into another's schema: size removed from v1beta1 only is a field-removed
// in v1beta1 (at v1beta1's properties, where it was) and a divergence at
// size in v1, the storage version, which still declares it.
func TestDiffLinesAcrossVersions(t *testing.T) {
	const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          size: {type: string}
          color: {type: string}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          size: {type: string}
          color: {type: string}
`
	dir := t.TempDir()
	oldFile, newFile := dir+"/old.yaml", dir+"/new.yaml"
	writeFile(t, oldFile, crd)
	writeFile(t, newFile, strings.Replace(crd, "          size: {type: string}\n", "", 1))
	r := crdguard(t, "", "diff", "-o", "json", oldFile, newFile)
	if r.code != ExitViolations {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	got := map[string]int{}
	for _, v := range decodeReport(t, r).Results[0].Violations {
		got[v.Rule] = v.Line
	}
	// In new.yaml: v1beta1's properties at 16, v1's size at 25.
	if got["field-removed"] != 16 || got["served-versions-diverge"] != 25 {
		t.Errorf("lines = %v, want field-removed 16, served-versions-diverge 25", got)
	}
}
