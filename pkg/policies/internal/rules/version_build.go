package rules

import (
	"slices"
	"strconv"
	"strings"
)

// versionBuild is a vendor build suffix that build: Ordered compares:
// numbers separated by dots, as Percona's 8.0.39-30.1 ends in 30.1.
type versionBuild []uint64

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
	var b versionBuild
	for p := range strings.SplitSeq(s, ".") {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || len(p) > 1 && p[0] == '0' {
			return nil, false
		}
		b = append(b, n)
	}
	return b, true
}

// compare orders builds number by number; a build that is the start of
// another is older: 30 < 30.1 < 30.2 < 31.
func (b versionBuild) compare(o versionBuild) int {
	return slices.Compare(b, o)
}
