package precision

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGoldenMergeKeepsLabels(t *testing.T) {
	kept := Finding{Check: "field-removed", CRD: "a.example.com", Version: "v1", Path: "^.spec.x", Verdict: True, Reason: "real"}
	lostTrue := Finding{Check: "field-removed", CRD: "a.example.com", Version: "v1", Path: "^.spec.y", Verdict: True, Reason: "real too"}
	lostFalse := Finding{Check: "validation-rules-changed", CRD: "a.example.com", Version: "v1", Path: "^.spec/x-kubernetes-validations[0]", Verdict: False, Reason: "false alarm"}
	g := &Golden{Header: []string{"a → b"}, Findings: []Finding{kept, lostTrue, lostFalse}}
	fresh := Finding{Check: "enum-value-removed", CRD: "a.example.com", Version: "v1", Path: "^.spec.mode/enum"}
	reported := []Finding{{Check: kept.Check, CRD: kept.CRD, Version: kept.Version, Path: kept.Path}, fresh}

	merged := g.Merge(reported)
	fresh.Verdict = Unlabelled
	// A lost true finding stays, so that the test keeps failing until a
	// person removes it; a lost false one goes.
	if want := []Finding{kept, fresh, lostTrue}; !slices.Equal(merged.Findings, want) {
		t.Errorf("merged %+v\nwant %+v", merged.Findings, want)
	}

	c := merged.Compare(reported)
	if c.Count != 2 || c.TrueCount != 1 || len(c.Unlabelled) != 1 || c.Unlabelled[0].Key() != fresh.Key() || len(c.Gone) != 1 || c.Gone[0].Key() != lostTrue.Key() {
		t.Errorf("comparison %+v", c)
	}

	path := filepath.Join(t.TempDir(), "pair.yaml")
	if err := merged.Write(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const want = `# a → b
findings:
  - check: enum-value-removed
    crd: a.example.com
    version: v1
    path: ^.spec.mode/enum
    verdict: unlabelled
  - check: field-removed
    crd: a.example.com
    version: v1
    path: ^.spec.x
    verdict: true
    reason: real
  - check: field-removed
    crd: a.example.com
    version: v1
    path: ^.spec.y
    verdict: true
    reason: real too
`
	if string(data) != want {
		t.Errorf("written:\n%s\nwant:\n%s", data, want)
	}
	read, err := ReadGolden(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(read.Header, merged.Header) || !slices.Equal(read.Findings, merged.Findings) {
		t.Errorf("read back %+v, want %+v", read, merged)
	}
}

func TestGoldenRefusesUnknownVerdicts(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"typo", "findings:\n- {check: a, crd: b, path: c, verdict: ture}\n", `verdict "ture": want true, false or unlabelled`},
		{"twice", "findings:\n- {check: a, crd: b, path: c, verdict: true}\n- {check: a, crd: b, path: c, verdict: false}\n", "is listed twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pair.yaml")
			if err := os.WriteFile(path, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadGolden(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
