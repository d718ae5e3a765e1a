package app

import (
	"strings"
	"testing"
)

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
