package rules

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestVersionPatternMatches(t *testing.T) {
	cases := []struct {
		pattern, version string
		want             bool
	}{
		{"1.19.x", "1.19.0", true},
		{"1.19.x", "1.19.2", true},
		{"1.19", "1.19.2", true},
		{"1.19.x", "1.190.0", false},
		{"1.19.x", "1", false}, // floats over every 1.x: names no minor version
		{"8.x", "8.4.3", true},
		{"8.x", "80.0.0", false},
		{"8.0.39", "8.0.39", true},
		{"8.0.39", "8.0.39-rc.1", true}, // numbers alone: a pre-release of 8.0.39 is 8.0.39
		{"8.0.39", "8.0.390", false},
		{"8.0.39", "8.0", false},
	}
	for _, c := range cases {
		p, err := parseVersionPattern(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		v, err := ParseSemanticVersion(c.version)
		if err != nil {
			t.Fatalf("%s: %v", c.version, err)
		}
		if got := p.matches(v); got != c.want {
			t.Errorf("%s matches %s = %v, want %v", c.pattern, c.version, got, c.want)
		}
	}
}

func TestCompileVersionTableErrors(t *testing.T) {
	spec := &v1alpha1.Rule{Name: "matrix", VersionTable: &v1alpha1.VersionTableRule{
		VersionPath:    "spec.nodes[*].version",
		Path:           "spec.image",
		DefaultVersion: "one",
		ImageTag:       &v1alpha1.ImageTagVersion{TagPattern: "^[0-9.]+$"},
		Rows: []v1alpha1.VersionTableRow{
			{Version: "1.19.x.x", Allowed: []string{"8.0.x", "x"}},
			{Version: "1.2.3.x", Allowed: nil},
		},
		Unlisted: "Maybe",
	}}
	_, errs := compileVersionTable(spec, field.NewPath("spec", "rules").Index(0), nil)
	want := []string{
		`spec.rules[0].versionTable.versionPath: Invalid value: "spec.nodes[*].version": must name one value; [*] is not allowed`,
		`spec.rules[0].versionTable.defaultVersion: Invalid value: "one": is not a version: not like 8.0.36 or v1.2.3-rc.1`,
		`spec.rules[0].versionTable.imageTag.tagPattern: Invalid value: "^[0-9.]+$": has no group named "version", like (?P<version>[0-9.]+), which holds the version`,
		`spec.rules[0].versionTable.rows[0].version: Invalid value: "1.19.x.x": is not a version pattern: one to three numbers, optionally ending in ".x", like 1.19.x or 8.0.39`,
		`spec.rules[0].versionTable.rows[0].allowed[1]: Invalid value: "x": is not a version pattern: one to three numbers, optionally ending in ".x", like 1.19.x or 8.0.39`,
		`spec.rules[0].versionTable.rows[1].version: Invalid value: "1.2.3.x": is not a version pattern: one to three numbers, optionally ending in ".x", like 1.19.x or 8.0.39`,
		`spec.rules[0].versionTable.rows[1].allowed: Required value: a row allows at least one version`,
		`spec.rules[0].versionTable.unlisted: Unsupported value: "Maybe": supported values: "Deny", "Allow"`,
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%v", len(errs), len(want), errs)
	}
	for i, e := range errs {
		if e.Error() != want[i] {
			t.Errorf("error %d:\n got %s\nwant %s", i, e.Error(), want[i])
		}
	}
}

// FuzzVersionPattern parses arbitrary patterns and versions: never a
// panic, and a pattern that parses matches the version written with its
// own numbers.
func FuzzVersionPattern(f *testing.F) {
	for _, seed := range [][2]string{{"1.19.x", "1.19.2"}, {"8.0.39", "8.0.39-rc.1"}, {"8.x", "8"}, {"x", "1"}, {"1.2.3.x", "1.2.3"}, {"99999999999999999999", "1"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, version string) {
		p, err := parseVersionPattern(pattern)
		if err != nil {
			return
		}
		if v, err := ParseSemanticVersion(version); err == nil {
			p.matches(v)
		}
		own, err := ParseSemanticVersion(strings.TrimSuffix(pattern, ".x"))
		if err != nil {
			t.Fatalf("pattern %q parsed, its numbers are no version: %v", pattern, err)
		}
		if !p.matches(own) {
			t.Errorf("pattern %q does not match its own numbers %s", pattern, own)
		}
	})
}
