package rules

import (
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestParseSemanticVersion(t *testing.T) {
	tests := []struct {
		in    string
		want  string // the padded version; "" when in is no version
		parts int
	}{
		{"8.0.36", "8.0.36", 3},
		{"v8.0.36", "8.0.36", 3},
		{"8.0", "8.0.0", 2},
		{"16", "16.0.0", 1},
		{"1.2.3-rc.1+build.5", "1.2.3-rc.1+build.5", 3},
		{"8.0-rc.1", "8.0.0-rc.1", 2},
		{"0.0.1", "0.0.1", 3},
		{"08.0.36", "", 0},                  // leading zero
		{"8.0.36-01", "", 0},                // numeric pre-release with a leading zero
		{"8.0.36.1", "", 0},                 // four numbers
		{"8.0.36-", "", 0},                  // empty pre-release
		{"8.0.36+", "", 0},                  // empty build metadata
		{"V8.0.36", "", 0},                  // only a lowercase v
		{"latest", "", 0},                   //
		{"", "", 0},                         //
		{"8.0.36 ", "", 0},                  // no surrounding space
		{"99999999999999999999.0.0", "", 0}, // beyond uint64
		{"8.0.36-debian12", "8.0.36-debian12", 3},
	}
	for _, tt := range tests {
		v, err := ParseSemanticVersion(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("ParseSemanticVersion(%q) = %v, want an error", tt.in, v.Version)
		case tt.want != "" && err != nil:
			t.Errorf("ParseSemanticVersion(%q): %v", tt.in, err)
		case tt.want != "" && (v.Version.String() != tt.want || v.parts != tt.parts):
			t.Errorf("ParseSemanticVersion(%q) = %v with %d parts, want %s with %d", tt.in, v.Version, v.parts, tt.want, tt.parts)
		}
	}
}

func TestSemverSameAs(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"8.0.36", "v8.0.36", true},
		{"8.0.36+build.1", "8.0.36+build.2", true}, // build metadata does not count
		{"8.0.36", "8.0.36+build.2", true},
		{"8.0", "v8.0", true},
		{"8.0", "8.0.0", false}, // a tag 8.0 floats over 8.0.x
		{"16", "16.0", false},
		{"8.0.36", "8.0.36-rc.1", false},
		{"8.0.36-rc.1", "v8.0.36-rc.1", true},
		{"8.0.36-rc.1", "8.0.36-rc.2", false},
		{"8.0.36", "8.0.37", false},
	}
	for _, tt := range tests {
		a, errA := ParseSemanticVersion(tt.a)
		b, errB := ParseSemanticVersion(tt.b)
		if errA != nil || errB != nil {
			t.Fatalf("%q, %q: %v %v", tt.a, tt.b, errA, errB)
		}
		if got := a.sameAs(b); got != tt.want || b.sameAs(a) != got {
			t.Errorf("%q sameAs %q = %v, want %v (both ways)", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestTagHasVersion(t *testing.T) {
	tests := []struct {
		tag, version string
		want         bool
	}{
		{"8.0.36", "8.0.36", true},
		{"8.0.36-debian12", "8.0.36", true},
		{"8.0.36-", "8.0.36", true}, // an empty variant is still "-" after the version
		{"8.0.360", "8.0.36", false},
		{"8.0.36.1", "8.0.36", false},
		{"8.0.36_x", "8.0.36", false},
		{"v8.0.36", "8.0.36", false},
		{"8.0", "8.0.36", false},
	}
	for _, tt := range tests {
		if got := tagHasVersion(tt.tag, tt.version); got != tt.want {
			t.Errorf("tagHasVersion(%q, %q) = %v, want %v", tt.tag, tt.version, got, tt.want)
		}
	}
}

// TestImageAgrees covers how each compare mode reads a tag, including
// the "_" that stands for "+" in tags under Semver.
func TestImageAgrees(t *testing.T) {
	tests := []struct {
		compare      v1alpha1.VersionCompare
		tag, version string
		want         bool
	}{
		{v1alpha1.CompareExact, "8.0.36", "8.0.36", true},
		{v1alpha1.CompareExact, "v8.0.36", "8.0.36", false},
		{v1alpha1.CompareSemver, "v8.0.36", "8.0.36", true},
		{v1alpha1.CompareSemver, "8.0.36_build.7", "8.0.36+build.1", true},
		{v1alpha1.CompareSemver, "8.0.36_build_7", "8.0.36", false}, // only one "_" becomes "+"; "_" is no build character
		{v1alpha1.CompareSemver, "8.0.36-debian12", "8.0.36", false},
		{v1alpha1.CompareSemver, "latest", "8.0.36", false},
		{v1alpha1.CompareTagPrefix, "8.0.36-debian12", "8.0.36", true},
		{v1alpha1.CompareTagPrefix, "8.0.360", "8.0.36", false},
	}
	for _, tt := range tests {
		r := &ImageVersion{Compare: tt.compare}
		declared := &declaredVersion{value: tt.version}
		if tt.compare == v1alpha1.CompareSemver {
			v, err := ParseSemanticVersion(tt.version)
			if err != nil {
				t.Fatal(err)
			}
			declared.semver = &v
		}
		if got, _ := r.agrees(tt.tag, declared); got != tt.want {
			t.Errorf("%s: tag %q vs version %q = %v, want %v", tt.compare, tt.tag, tt.version, got, tt.want)
		}
	}
}

func TestScalarString(t *testing.T) {
	tests := []struct {
		in       any
		want     string
		isNumber bool
		ok       bool
	}{
		{"8.0.36", "8.0.36", false, true},
		{int64(8), "8", true, true},
		{float64(8.1), "8.1", true, true},
		{float64(1e21), "1000000000000000000000", true, true},
		{true, "", false, false},
		{map[string]any{}, "", false, false},
	}
	for _, tt := range tests {
		s, isNumber, ok := scalarString(tt.in)
		if s != tt.want || isNumber != tt.isNumber || ok != tt.ok {
			t.Errorf("scalarString(%#v) = %q, %v, %v; want %q, %v, %v", tt.in, s, isNumber, ok, tt.want, tt.isNumber, tt.ok)
		}
	}
}
