package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// TestDiffText renders a diff run from the report model alone: CRD findings
// at or above the minimum, breaking first with their impact beside a
// waived severity and their short path, the replayed objects relative to
// their argument, and totals that count every finding.
func TestDiffText(t *testing.T) {
	rep := New([]Result{
		{Source: "new/widgets.yaml", Line: 3, Kind: "CustomResourceDefinition", Name: "widgets.example.com", Operation: "UPDATE", Violations: []Finding{
			{Field: "long.size", Type: "info", Rule: "field-added", Message: "v1: added", Enforcement: v1alpha1.Audit, Line: 9},
			{Field: "long.legacy", Type: "breaking", Rule: "field-removed", Message: "v1: removed (waived: known)", Enforcement: v1alpha1.Audit, Line: 7},
			{Field: "long.color", Type: "breaking", Rule: "field-removed", Message: "v1: removed", Enforcement: v1alpha1.Deny},
		}},
		{Source: "old/gears.yaml", Line: 1, Kind: "CustomResourceDefinition", Name: "gears.example.com", Operation: "DELETE"},
		{Source: "backup/shop.yaml", Line: 4, APIVersion: "example.com/v1", Kind: "Widget", Namespace: "shop", Name: "w", Operation: "UPDATE", Violations: []Finding{
			{Field: "spec.color", Type: "FieldValueInvalid", Rule: "pruned", Message: "pruned", Enforcement: v1alpha1.Deny},
		}},
	})
	layout := &DiffLayout{
		Old: Origin{Arg: "old", Name: "old", EntryPrefix: "old/"}, New: Origin{Arg: "new", Name: "new", EntryPrefix: "new/"},
		Objects: []Origin{{Arg: "backup", Name: "backup", EntryPrefix: "backup/"}}, CRDs: 2,
		MinEnforcement: v1alpha1.Deny, ShortPath: func(f string) string { return strings.TrimPrefix(f, "long.") },
	}
	var buf bytes.Buffer
	if err := Write(&buf, Text, rep, Options{Command: "diff", Diff: layout}); err != nil {
		t.Fatal(err)
	}
	want := `--- OLD old
+++ NEW new
widgets.example.com changed (widgets.yaml:3): 1 breaking, 0 warnings, 2 info
  breaking widgets.yaml:3 field-removed color: v1: removed
gears.example.com removed (OLD gears.yaml:1): 0 breaking, 0 warnings, 0 info
stored objects replayed against NEW:
Widget shop/w (shop.yaml:4): 1 breaking
  breaking spec.color: pruned
total: 2 breaking, 0 warnings, 2 info in 2 CRDs (0 added, 1 removed, 1 changed, 0 unchanged) and 1 stored object replayed (1 broken, 0 skipped, 0 unreadable)
`
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}

	layout.MinEnforcement = v1alpha1.Audit
	buf.Reset()
	if err := Write(&buf, Text, rep, Options{Command: "diff", Diff: layout}); err != nil {
		t.Fatal(err)
	}
	if want := "  info (breaking impact) widgets.yaml:7 field-removed legacy: v1: removed (waived: known)\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("a waived breaking change should show its impact:\n%s", buf.String())
	}
}

// TestOriginRelative names a source by the argument it was read from.
func TestOriginRelative(t *testing.T) {
	dir := Origin{Arg: "./crds", Name: "crds", EntryPrefix: "crds/"}
	for source, want := range map[string]string{"./crds": "crds", "crds/sub/x.yaml": "sub/x.yaml", "other/x.yaml": "other/x.yaml"} {
		if got := relativeTo(source, dir); got != want {
			t.Errorf("relativeTo(%q) = %q, want %q", source, got, want)
		}
	}
}
