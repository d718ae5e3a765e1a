package vap

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// maxCompiledChains bounds the chains of steps a compiled UpgradePath
// writes out, one string each: a longer list stays with the webhook, so
// the policy stays well under the API server's size limits.
const maxCompiledChains = 256

// upgradeChain is a chain of listed steps from step i to step j, with the
// ranges it goes through.
type upgradeChain struct {
	from, to int
	via      []string
}

// upgradeChains lists the chains of u in the order UpgradePath's judge
// prefers them: shortest first, then by first step, then by last step.
// The chain from a step to itself is none: that step is allowed.
func upgradeChains(u *rules.UpgradePath) []upgradeChain {
	var out []upgradeChain
	for i := range u.Via {
		for j, via := range u.Via[i] {
			if i != j && via != nil {
				out = append(out, upgradeChain{from: i, to: j, via: via})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b upgradeChain) int { return len(a.via) - len(b.via) })
	return out
}

// checkUpgradePathCompiles refuses what CEL cannot hold: a range bound
// beyond CEL's int, or more chains than maxCompiledChains.
func checkUpgradePathCompiles(u *rules.UpgradePath) error {
	for _, s := range u.Steps {
		for _, r := range []rules.VersionRange{s.From, s.To} {
			bounds := []rules.VersionTriple{r.Low}
			if r.High != nil {
				bounds = append(bounds, *r.High)
			}
			for _, b := range bounds {
				if slices.ContainsFunc(b[:], func(n uint64) bool { return n > math.MaxInt64 }) {
					return fmt.Errorf("range %s has a number beyond CEL's int", r.Raw)
				}
			}
		}
	}
	if n := len(upgradeChains(u)); n > maxCompiledChains {
		return fmt.Errorf("its steps form %d chains, more than the %d that are compiled", n, maxCompiledChains)
	}
	return nil
}

// celVersionLess is v < b for the major, minor and patch numbers v names
// (CEL ints) and the bound b.
func celVersionLess(v [3]string, b rules.VersionTriple) string {
	return fmt.Sprintf("(%[1]s < %[4]d || %[1]s == %[4]d && (%[2]s < %[5]d || %[2]s == %[5]d && %[3]s < %[6]d))", v[0], v[1], v[2], b[0], b[1], b[2])
}

// celInRange is rules.VersionRange.Contains in CEL.
func celInRange(v [3]string, r rules.VersionRange) string {
	in := "!" + celVersionLess(v, r.Low)
	if r.High != nil {
		in += " && " + celVersionLess(v, *r.High)
	}
	return "(" + in + ")"
}

// celUpgradePath is UpgradePath's judge in CEL, for the parsed versions
// was and now (CEL semver values), written wasRaw and nowRaw (CEL
// strings); invalid makes a finding of a message.
func celUpgradePath(names *celNames, u *rules.UpgradePath, was, now, wasRaw, nowRaw string, invalid func(string) string) string {
	w := [3]string{names.next("wM"), names.next("wm"), names.next("wp")}
	n := [3]string{names.next("nM"), names.next("nm"), names.next("np")}
	starts, ends, k := names.next("starts"), names.next("ends"), names.next("k")
	var from, to, tos []string
	for _, s := range u.Steps {
		from = append(from, celInRange(w, s.From))
		to = append(to, celInRange(n, s.To))
		tos = append(tos, s.To.Raw)
	}
	chains := upgradeChains(u)
	var ci, cj, cvia []string
	for _, c := range chains {
		ci, cj = append(ci, strconv.Itoa(c.from)), append(cj, strconv.Itoa(c.to))
		cvia = append(cvia, "; go through "+strings.Join(c.via, ", then "))
	}
	step := fmt.Sprintf(`%s + " → " + %s + " is not an allowed step"`, wasRaw, nowRaw)
	noStart := invalid(step + ` + "; upgradePaths has no step from " + ` + wasRaw)
	noChain := invalid(fmt.Sprintf(`%s + ", and no steps of upgradePaths lead there; allowed from " + %s + ": " + lists.range(%d).filter(%s, %s[%s]).map(%s, %s[%s]).join(", ")`,
		step, wasRaw, len(u.Steps), k, starts, k, k, celStrings(tos), k))
	refusal := fmt.Sprintf(`(!%[1]s.exists(%[2]s, %[2]s) ? %[3]s : %[4]s)`, starts, k, noStart, noChain)
	if len(chains) > 0 {
		found := names.next("chains")
		chain := invalid(fmt.Sprintf(`%s + %s[%s[0]]`, step, celStrings(cvia), found))
		refusal = fmt.Sprintf(`cel.bind(%[1]s, lists.range(%[2]d).filter(%[3]s, %[4]s[[%[6]s][%[3]s]] && %[5]s[[%[7]s][%[3]s]]), size(%[1]s) > 0 ? %[8]s : %[9]s)`,
			found, len(chains), k, starts, ends, strings.Join(ci, ", "), strings.Join(cj, ", "), chain, refusal)
	}
	verdict := fmt.Sprintf(`(%[1]s == %[2]s && %[3]s == %[4]s) || %[5]s ? [] : cel.bind(%[6]s, [%[8]s], cel.bind(%[7]s, [%[9]s], lists.range(%[10]d).exists(%[11]s, %[6]s[%[11]s] && %[7]s[%[11]s]) ? [] : %[12]s))`,
		w[0], n[0], w[1], n[1], celVersionLessVars(n, w), starts, ends, strings.Join(from, ", "), strings.Join(to, ", "), len(u.Steps), k, refusal)
	return fmt.Sprintf(`cel.bind(%s, %s.major(), cel.bind(%s, %s.minor(), cel.bind(%s, %s.patch(), cel.bind(%s, %s.major(), cel.bind(%s, %s.minor(), cel.bind(%s, %s.patch(), %s))))))`,
		w[0], was, w[1], was, w[2], was, n[0], now, n[1], now, n[2], now, verdict)
}

// celVersionLessVars is a < b for two versions' numbers in CEL.
func celVersionLessVars(a, b [3]string) string {
	return fmt.Sprintf("(%[1]s < %[4]s || %[1]s == %[4]s && (%[2]s < %[5]s || %[2]s == %[5]s && %[3]s < %[6]s))", a[0], a[1], a[2], b[0], b[1], b[2])
}
