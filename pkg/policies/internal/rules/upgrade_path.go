package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// UpgradePath is a transition's upgradePaths: the steps an upgrade may
// take, as a graph whose nodes are version ranges.
//
// Decisions:
//   - Within a minor version (a patch, or no change) every step is
//     allowed: vendors ship patches to be applied in any order.
//   - Going down is never this check's business: NoDowngrade governs it,
//     so a policy says both when it wants both.
//   - Versions compare by major, minor and patch alone: a pre-release or
//     build of 4.0.0 is in the range 4.0.
//   - A refused step names the shortest chain of listed steps that leads
//     there, through the ranges as the policy wrote them; of chains of one
//     length, the one whose first step, then last step, comes first in the
//     list. The chains are found when the policy loads, so a request only
//     looks them up.
type UpgradePath struct {
	Steps []UpgradeStep
	// Via holds, for a step i and a step j, the ranges a shortest chain of
	// steps from i to j goes through (empty for i itself), nil when no
	// chain leads from i to j.
	Via [][][]string
}

// UpgradeStep is one listed step: from a version in From to one in To.
type UpgradeStep struct {
	From, To VersionRange
}

// VersionTriple is a version's major, minor and patch numbers.
type VersionTriple [3]uint64

// Less orders triples as versions.
func (v VersionTriple) Less(o VersionTriple) bool {
	for i := range v {
		if v[i] != o[i] {
			return v[i] < o[i]
		}
	}
	return false
}

// tripleOf is a parsed version's major, minor and patch numbers.
func tripleOf(v SemanticVersion) VersionTriple {
	return VersionTriple{v.Major, v.Minor, v.Patch}
}

// VersionRange is the versions from Low up to, not including, High.
type VersionRange struct {
	// Raw is the range as the policy wrote it.
	Raw string
	Low VersionTriple
	// High is nil when nothing bounds the range: "18446744073709551615.x".
	High *VersionTriple
}

// Contains tells whether v is in the range.
func (r VersionRange) Contains(v VersionTriple) bool {
	return !v.Less(r.Low) && (r.High == nil || v.Less(*r.High))
}

// overlaps tells whether a version is in both ranges.
func (r VersionRange) overlaps(o VersionRange) bool {
	return (o.High == nil || r.Low.Less(*o.High)) && (r.High == nil || o.Low.Less(*r.High))
}

// rangeSeparator separates the bounds of "3.10 - 3.13": spaces on each
// side keep it apart from a version's own "-".
const rangeSeparator = " - "

// parseVersionRange reads "3.13", "3.13.x", "4", "4.x", "8.0.39" or
// "3.10 - 3.13".
func parseVersionRange(s string) (VersionRange, error) {
	r := VersionRange{Raw: s}
	first, last, isSpan := strings.Cut(s, rangeSeparator)
	low, high, err := parseVersionBound(first)
	if err != nil {
		return r, err
	}
	if isSpan {
		var lastLow VersionTriple
		if lastLow, high, err = parseVersionBound(last); err != nil {
			return r, err
		}
		if lastLow.Less(low) {
			return r, fmt.Errorf("%s starts after it ends", s)
		}
	}
	r.Low, r.High = low, high
	return r, nil
}

// parseVersionBound reads one to three numbers, and an "x" after fewer
// than three: the versions that start with those numbers.
func parseVersionBound(s string) (low VersionTriple, high *VersionTriple, err error) {
	bad := fmt.Errorf("%q is not a version range like 3.13, 3.13.x, 4.x, 8.0.39 or 3.10 - 3.13", s)
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) > 1 && parts[len(parts)-1] == "x" {
		parts = parts[:len(parts)-1]
		if len(parts) == 3 {
			return low, nil, bad
		}
	}
	if len(parts) > 3 || parts[0] == "" {
		return low, nil, bad
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || len(p) > 1 && p[0] == '0' {
			return low, nil, bad
		}
		low[i] = n
	}
	// The first version past the range: the last number written, plus one.
	last := len(parts) - 1
	if low[last] == math.MaxUint64 {
		return low, nil, nil
	}
	h := low
	h[last]++
	return low, &h, nil
}

// compileUpgradePath reads a transition's upgradePaths.
func compileUpgradePath(steps []v1alpha1.UpgradeStep, path *field.Path) (*UpgradePath, field.ErrorList) {
	u := &UpgradePath{}
	var errs field.ErrorList
	for i, s := range steps {
		at := path.Index(i)
		from, err := parseVersionRange(s.From)
		if err != nil {
			errs = append(errs, field.Invalid(at.Child("from"), s.From, err.Error()))
		}
		to, toErr := parseVersionRange(s.To)
		if toErr != nil {
			errs = append(errs, field.Invalid(at.Child("to"), s.To, toErr.Error()))
		}
		if err == nil && toErr == nil && to.High != nil && !from.Low.Less(*to.High) {
			errs = append(errs, field.Invalid(at.Child("to"), s.To, fmt.Sprintf("is below %s: a step leads up, and going down is NoDowngrade's business", s.From)))
		}
		u.Steps = append(u.Steps, UpgradeStep{From: from, To: to})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	u.Via = make([][][]string, len(u.Steps))
	for i := range u.Steps {
		u.Via[i] = u.chainsFrom(i)
	}
	return u, nil
}

// chainsFrom finds, breadth first, the shortest chain of steps from step
// start to every step: a step follows another when its From overlaps the
// other's To.
func (u *UpgradePath) chainsFrom(start int) [][]string {
	via := make([][]string, len(u.Steps))
	via[start] = []string{}
	queue := []int{start}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		for next, s := range u.Steps {
			if via[next] == nil && s.From.overlaps(u.Steps[at].To) {
				via[next] = append(append([]string{}, via[at]...), u.Steps[at].To.Raw)
				queue = append(queue, next)
			}
		}
	}
	return via
}

// judge tells whether was to now is an allowed step, and when it is not,
// why, with the chain of steps that leads there. wasRaw and nowRaw are
// the versions as written.
func (u *UpgradePath) judge(was, now SemanticVersion, wasRaw, nowRaw string) string {
	w, n := tripleOf(was), tripleOf(now)
	if w[0] == n[0] && w[1] == n[1] || n.Less(w) {
		return ""
	}
	var starts []int
	for i, s := range u.Steps {
		if !s.From.Contains(w) {
			continue
		}
		if s.To.Contains(n) {
			return ""
		}
		starts = append(starts, i)
	}
	step := fmt.Sprintf("%s → %s is not an allowed step", wasRaw, nowRaw)
	if len(starts) == 0 {
		return step + "; upgradePaths has no step from " + wasRaw
	}
	var best []string
	for _, i := range starts {
		for j, s := range u.Steps {
			if v := u.Via[i][j]; v != nil && s.To.Contains(n) && (best == nil || len(v) < len(best)) {
				best = v
			}
		}
	}
	if best != nil {
		return step + "; go through " + strings.Join(best, ", then ")
	}
	var next []string
	for _, i := range starts {
		next = append(next, u.Steps[i].To.Raw)
	}
	return fmt.Sprintf("%s, and no steps of upgradePaths lead there; allowed from %s: %s", step, wasRaw, strings.Join(next, ", "))
}
