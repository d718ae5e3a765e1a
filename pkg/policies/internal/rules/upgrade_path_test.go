package rules

import (
	"math"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestVersionRangeContains(t *testing.T) {
	maxN := strconv.FormatUint(math.MaxUint64, 10)
	tests := []struct {
		rng     string
		in, out []VersionTriple
	}{
		{"3.13", []VersionTriple{{3, 13, 0}, {3, 13, 99}}, []VersionTriple{{3, 12, 9}, {3, 14, 0}, {4, 0, 0}}},
		{"3.13.x", []VersionTriple{{3, 13, 0}}, []VersionTriple{{3, 14, 0}}},
		{"v4.x", []VersionTriple{{4, 0, 0}, {4, 99, 1}}, []VersionTriple{{3, 99, 99}, {5, 0, 0}}},
		{"8.0.39", []VersionTriple{{8, 0, 39}}, []VersionTriple{{8, 0, 38}, {8, 0, 40}}},
		{"3.10 - 3.13", []VersionTriple{{3, 10, 0}, {3, 13, 5}}, []VersionTriple{{3, 9, 9}, {3, 14, 0}}},
		{maxN + ".x", []VersionTriple{{math.MaxUint64, math.MaxUint64, math.MaxUint64}}, []VersionTriple{{math.MaxUint64 - 1, 0, 0}}},
	}
	for _, tt := range tests {
		r, err := parseVersionRange(tt.rng)
		if err != nil {
			t.Fatalf("%s: %v", tt.rng, err)
		}
		for _, v := range tt.in {
			if !r.Contains(v) {
				t.Errorf("%s does not contain %v", tt.rng, v)
			}
		}
		for _, v := range tt.out {
			if r.Contains(v) {
				t.Errorf("%s contains %v", tt.rng, v)
			}
		}
	}
}

// TestUpgradePathChains checks the chain a refused step names: the
// shortest, and of equally short ones the one whose steps come first.
func TestUpgradePathChains(t *testing.T) {
	u, errs := compileUpgradePath([]v1alpha1.UpgradeStep{
		{From: "1", To: "2.0"},
		{From: "1", To: "2.1"},
		{From: "2.1", To: "3"},
		{From: "2.0", To: "3"},
		{From: "3", To: "4"},
		{From: "1", To: "4 - 5"},
	}, field.NewPath("upgradePaths"))
	if errs != nil {
		t.Fatal(errs)
	}
	tests := []struct{ was, now, want string }{
		{"1.0", "3.0", "1.0 → 3.0 is not an allowed step; go through 2.0"},
		{"1.0", "4.0", ""},
		{"1.0", "5.2", ""},
		{"1.0", "6.0", "1.0 → 6.0 is not an allowed step, and no steps of upgradePaths lead there; allowed from 1.0: 2.0, 2.1, 4 - 5"},
		{"2.0", "4.0", "2.0 → 4.0 is not an allowed step; go through 3"},
		{"2.0.1", "2.0.7", ""},
		{"3.0", "2.0", ""},
		{"0.9", "2.0", "0.9 → 2.0 is not an allowed step; upgradePaths has no step from 0.9"},
	}
	for _, tt := range tests {
		was, err := ParseSemanticVersion(tt.was)
		if err != nil {
			t.Fatal(err)
		}
		now, err := ParseSemanticVersion(tt.now)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.judge(was, now, tt.was, tt.now); got != tt.want {
			t.Errorf("%s → %s: %q; want %q", tt.was, tt.now, got, tt.want)
		}
	}
}

func TestVersionBuildOrder(t *testing.T) {
	order := []string{"29.9", "30", "30.1", "30.2", "30.10", "31", "18446744073709551616"}
	for i := 1; i < len(order); i++ {
		a, okA := parseBuild(order[i-1])
		b, okB := parseBuild(order[i])
		if !okA || !okB || a.compare(b) >= 0 || b.compare(a) <= 0 {
			t.Errorf("%s is not older than %s", order[i-1], order[i])
		}
	}
	for _, bad := range []string{"", "debian", "30.01", "30..1", "30.1-1", "-1", "+1", "30."} {
		if _, ok := parseBuild(bad); ok {
			t.Errorf("%q read as a build", bad)
		}
	}
}
