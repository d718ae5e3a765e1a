package app

import (
	"testing"

	"github.com/crdguard/crdguard/pkg/report"
)

func TestChoiceFlag(t *testing.T) {
	value := "skip"
	f := newChoiceFlag(&value, "skip", "error")
	if f.String() != "skip" || f.Type() != "string" {
		t.Errorf("String %q, Type %q; want the default and string", f.String(), f.Type())
	}
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "error", want: "error"},
		// Any letter case, as -o takes it; the choice keeps its spelling.
		{in: "SKIP", want: "skip"},
		{in: "Error", want: "error"},
		{in: "ignore", want: "error", err: `unknown value "ignore": valid values are skip, error`},
		{in: "", want: "error", err: `unknown value "": valid values are skip, error`},
		{in: " skip", want: "error", err: `unknown value " skip": valid values are skip, error`},
	} {
		err := f.Set(tc.in)
		if value != tc.want || f.String() != tc.want || (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("Set(%q): value %q, error %v; want %q, %q", tc.in, value, err, tc.want, tc.err)
		}
	}
}

// TestOutputFlag: -o of a command with its own formats words its error as
// report.Format does.
func TestOutputFlag(t *testing.T) {
	format := outputYAML
	f := newOutputFlag(&format, outputYAML, string(report.JSON))
	if err := f.Set("JSON"); err != nil || format != string(report.JSON) {
		t.Errorf("Set(JSON): %q, %v", format, err)
	}
	want := `unknown output format "table": valid formats are yaml, json`
	if err := f.Set("table"); err == nil || err.Error() != want || format != string(report.JSON) {
		t.Errorf("Set(table): %q, %v; want %q", format, err, want)
	}
}

// TestChoiceFlagsTakeAnyCase: a command runs with a choice in any letter
// case as with its own spelling.
func TestChoiceFlagsTakeAnyCase(t *testing.T) {
	lower := crdguard(t, "", "vap", "--policies", examplePolicy, "-o", "json", "--messages", "findings")
	upper := crdguard(t, "", "vap", "--policies", examplePolicy, "-o", "JSON", "--messages", "Findings")
	if lower.code != ExitOK || upper != lower {
		t.Errorf("exit %d and %d, stderr %q and %q; outputs equal: %t", lower.code, upper.code, lower.stder, upper.stder, upper.stdout == lower.stdout)
	}
}

// TestChoiceFlagsComplete: the shell completes every fixed-choice flag
// with its values, and offers no file names for it.
func TestChoiceFlagsComplete(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "-o", ""}, "text\njson\nsarif\njunit\nmarkdown\n"},
		{[]string{"validate", "--field-validation", ""}, "Strict\nWarn\nIgnore\n"},
		{[]string{"validate", "--missing-schemas", ""}, "skip\nerror\n"},
		{[]string{"validate", "--unpaired", ""}, "error\ncreate\n"},
		{[]string{"lint", "--fail-on", ""}, "error\nwarning\ninfo\n"},
		{[]string{"lint", "--output", ""}, "text\njson\nsarif\njunit\nmarkdown\n"},
		{[]string{"diff", "--min-severity", ""}, "error\nwarning\ninfo\n"},
		{[]string{"audit", "-o", ""}, "text\njson\nsarif\njunit\nmarkdown\n"},
		{[]string{"test", "-o", ""}, "text\njunit\n"},
		{[]string{"vap", "-o", ""}, "yaml\njson\n"},
		{[]string{"vap", "--messages", ""}, "summary\nfindings\n"},
		{[]string{"webhook-config", "-o", ""}, "values\nkustomize\n"},
	} {
		r := crdguard(t, "", append([]string{"__complete"}, tc.args...)...)
		// :4 is cobra's ShellCompDirectiveNoFileComp.
		if want := tc.want + ":4\n"; r.code != ExitOK || r.stdout != want {
			t.Errorf("%q: exit %d, completions\n%s\nwant\n%s", tc.args, r.code, r.stdout, want)
		}
	}
}
