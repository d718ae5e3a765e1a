package report

import (
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"evil\x1b[31m":            `evil\x1b[31m`,
		"a\rb":                    `a\rb`,
		"bell\a":                  `bell\a`,
		"two\nlines\ttab":         `two\nlines\ttab`,
		"del\x7f":                 `del\x7f`,
		"csi\u009b31m":            `csi\u009b31m`,
		"abc\u202edcba":           `abc\u202edcba`,
		"\u2066isolate\u2069":     `\u2066isolate\u2069`,
		"zero\u200bwidth":         `zero\u200bwidth`,
		"line\u2028sep":           `line\u2028sep`,
		"bad\xffutf8\xc3":         `bad\xffutf8\xc3`,
		"café 日本 ü\u00a0nbsp":     "café 日本 ü\u00a0nbsp",
		"replacement \ufffd kept": "replacement \ufffd kept",
		`regex '^\d+$' stays`:     `regex '^\d+$' stays`,
		"":                        "",
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// evilResults put ESC, CR, BEL and a bidi override in every string of a
// result that comes from the input, beside normal non-ASCII text.
func evilResults() []Result {
	return []Result{
		{
			Source: "dir/\x1b]0;title\a.yaml", Document: 0, Line: 3,
			APIVersion: "example.com/v1", Kind: "Widget\u202e", Namespace: "ns\r", Name: "evil\x1b[31m",
			Operation: "CREATE",
			Violations: []Finding{
				{Field: "metadata.labels[\x1b[2J]", Type: "FieldValueInvalid", Message: "Invalid value: \"x\x1b[0m\": café 日本\rforged", Policy: "p\a", Rule: "r", Enforcement: v1alpha1.Deny, Line: 4, Column: 5},
			},
			Warnings: []string{"warn\x1b[1m | *bold*"},
		},
		{Source: "e.yaml", Line: 1, Error: "yaml: bad \x1b[31m"},
		{Source: "s.yaml", Line: 1, APIVersion: "v1", Kind: "Thing", Name: "s", Skipped: true, SkipReason: "no CRD for \u202eThing"},
	}
}

func TestTextEscapesInput(t *testing.T) {
	got := string(render(t, Text, New(evilResults()), Options{}))
	want := `dir/\x1b]0;title\a.yaml:3 (document 1): Widget\u202e ns\r/evil\x1b[31m is invalid (CREATE):
  * dir/\x1b]0;title\a.yaml:4:5: [p\a/r] metadata.labels[\x1b[2J]: Invalid value: "x\x1b[0m": café 日本\rforged
  Warning: warn\x1b[1m | *bold*
e.yaml:1 (document 1): error: yaml: bad \x1b[31m
s.yaml:1 (document 1): Thing s skipped: no CRD for \u202eThing
2 objects and 1 unreadable input: 0 allowed, 1 denied, 1 skipped, 1 error
`
	if got != want {
		t.Errorf("text output\n got: %q\nwant: %q", got, want)
	}
}

func TestMarkdownEscapesInput(t *testing.T) {
	got := string(render(t, Markdown, New(evilResults()), Options{}))
	for _, c := range []string{"\x1b", "\r", "\a", "\u202e"} {
		if strings.Contains(got, c) {
			t.Errorf("markdown output holds %q:\n%s", c, got)
		}
	}
	for _, line := range []string{
		"#### ❌ Widget\\\\u202e ns\\\\r/evil\\\\x1b\\[31m (CREATE) — `dir/\\x1b]0;title\\a.yaml:3 (document 1)`",
		"| Deny | `p\\a/r` | `metadata.labels[\\x1b[2J]` | Invalid value: \"x\\\\x1b\\[0m\": café 日本\\\\rforged |",
		"> ⚠️ warn\\\\x1b\\[1m \\| \\*bold\\*",
		"**Error:** yaml: bad \\\\x1b\\[31m",
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("markdown output lacks line %q:\n%s", line, got)
		}
	}
}
