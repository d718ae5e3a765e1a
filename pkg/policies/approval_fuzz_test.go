package policies

import (
	"slices"
	"testing"
)

// FuzzApprovalGrammar checks that FormatApproval and ParseApproval are one
// grammar: whatever parses formats back to a value that parses the same,
// and whatever formats parses back to what was formatted.
func FuzzApprovalGrammar(f *testing.F) {
	for _, seed := range []string{
		"ratio: load test",
		" ratio , p/requests ,: why: because",
		"ratio",
		"ratio:  ",
		" , : reason",
		"a,b,c: reason, with commas",
		"p/r: multi\nline",
		": no names",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		parsed, err := ParseApproval(value, "rule")
		if err != nil {
			return
		}
		formatted, err := FormatApproval(parsed)
		if err != nil {
			t.Fatalf("FormatApproval(%+v), parsed from %q: %v", parsed, value, err)
		}
		again, err := ParseApproval(formatted, "rule")
		if err != nil {
			t.Fatalf("ParseApproval(%q), formatted from %q: %v", formatted, value, err)
		}
		if !slices.Equal(again.Names, parsed.Names) || again.Reason != parsed.Reason {
			t.Fatalf("%q parses to %+v, formats to %q, which parses to %+v", value, parsed, formatted, again)
		}
	})
}
