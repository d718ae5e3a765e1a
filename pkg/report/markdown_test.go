package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestMarkdownGolden(t *testing.T) {
	golden.Assert(t, filepath.Join("testdata", "report.md"), render(t, Markdown, sampleReport(), Options{Command: "diff"}))
}

func TestMarkdownEscapesTableCells(t *testing.T) {
	rep := New([]Result{{
		Source: "a|b.yaml", Line: 3, Kind: "Widget", Name: "w",
		Violations: []Finding{{Field: "spec.x", Message: "a | b\n*c* <d> `e`", Policy: "diff", Rule: "r", Enforcement: v1alpha1.Deny}},
	}})
	got := string(render(t, Markdown, rep, Options{}))
	for _, want := range []string{
		"### ❌ crdguard validate: 1 object: 0 allowed, 1 denied, 0 skipped, 0 errors\n",
		"#### ❌ Widget w — `a\\|b.yaml:3 (document 1)`\n",
		"| Deny | `diff/r` | `spec.x` | a \\| b \\*c\\* &lt;d&gt; \\`e\\` |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if markdownCode("a`b") != "``a`b``" {
		t.Errorf("markdownCode(a`b) = %q", markdownCode("a`b"))
	}
}
