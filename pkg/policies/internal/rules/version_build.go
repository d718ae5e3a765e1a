package rules

import (
	"cmp"
	"slices"
	"strings"
)

// versionBuild is a vendor build suffix that build: Ordered compares:
// numbers separated by dots, as Percona's 8.0.39-30.1 ends in 30.1. The
// numbers stay digits, of any length: without leading zeros, a longer
// number is the larger, and numbers of one length order as text.
type versionBuild []string

// splitBuild cuts a version at its first "-" into the version and its
// build, "" when it has none.
func splitBuild(raw string) (version, build string) {
	version, build, _ = strings.Cut(raw, "-")
	return version, build
}

// parseBuild reads a build; ok is false when it is not numbers separated
// by dots (without leading zeros, which would make 30.01 and 30.1 one).
func parseBuild(s string) (versionBuild, bool) {
	if s == "" {
		return nil, false
	}
	b := versionBuild(strings.Split(s, "."))
	for _, n := range b {
		if n == "" || len(n) > 1 && n[0] == '0' || strings.Trim(n, "0123456789") != "" {
			return nil, false
		}
	}
	return b, true
}

// compare orders builds number by number; a build that is the start of
// another is older: 30 < 30.1 < 30.2 < 31.
func (b versionBuild) compare(o versionBuild) int {
	return slices.CompareFunc(b, o, func(x, y string) int {
		return cmp.Or(cmp.Compare(len(x), len(y)), strings.Compare(x, y))
	})
}
