package vap

import (
	"fmt"
)

// buildRE is what rules.parseBuild reads: numbers without leading zeros,
// separated by dots.
const buildRE = `^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*$`

// celBuildVerdict is Transition.judgeBuild in CEL, for the versions as
// written (CEL strings) of two equal versions.
func celBuildVerdict(names *celNames, wasRaw, nowRaw string, invalid func(string) string) string {
	wb, nb := names.next("wb"), names.next("nb")
	build := func(raw string) string {
		return fmt.Sprintf(`(%[1]s.indexOf("-") >= 0 ? %[1]s.substring(%[1]s.indexOf("-") + 1) : "")`, raw)
	}
	noBuild := invalid(fmt.Sprintf(`"has no build, which build: Ordered compares; was " + %s + "; allowed: " + %s + " or later"`, wasRaw, wasRaw))
	badBuild := invalid(fmt.Sprintf(`"has build " + %s + ", which is not numbers separated by dots, as build: Ordered compares; was " + %s`, nb, wasRaw))
	down := invalid(fmt.Sprintf(`"may not be downgraded: was " + %s + "; allowed: " + %s + " or later (build: Ordered)"`, wasRaw, wasRaw))
	return fmt.Sprintf(`cel.bind(%[1]s, %[2]s, cel.bind(%[3]s, %[4]s, !%[1]s.matches(%[5]s) ? [] : %[3]s == "" ? %[6]s : !%[3]s.matches(%[5]s) ? %[7]s : %[8]s ? %[9]s : []))`,
		wb, build(wasRaw), nb, build(nowRaw), celString(buildRE), noBuild, badBuild, celBuildLess(names, nb, wb), down)
}

// celBuildLess is a < b for two builds (CEL strings that match buildRE):
// number by number, a longer number the larger, and a build that is the
// start of the other the older, as versionBuild.compare orders them.
func celBuildLess(names *celNames, a, b string) string {
	x, y, d, i := names.next("bx"), names.next("by"), names.next("bd"), names.next("i")
	first := func(list string) string { return list + "[" + d + "[0]]" }
	return fmt.Sprintf(`cel.bind(%[1]s, %[3]s.split("."), cel.bind(%[2]s, %[4]s.split("."), cel.bind(%[5]s, lists.range(size(%[1]s) < size(%[2]s) ? size(%[1]s) : size(%[2]s)).filter(%[6]s, %[1]s[%[6]s] != %[2]s[%[6]s]), size(%[5]s) > 0 ? (size(%[7]s) < size(%[8]s) || size(%[7]s) == size(%[8]s) && %[7]s < %[8]s) : size(%[1]s) < size(%[2]s))))`,
		x, y, a, b, d, i, first(x), first(y))
}
