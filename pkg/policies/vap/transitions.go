package vap

import (
	"fmt"
	"slices"
	"strings"

	"github.com/distribution/reference"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// compileTransitions compiles a transitions rule: oldObject against object on
// UPDATE. Versions are compared with the Kubernetes semver library after
// filling in missing minor and patch numbers, as rules.ParseSemanticVersion
// does; quantities with the quantity library, exactly.
//
// What stays with the webhook: NoRemoval below a "[*]", an imageTag's
// tagPattern (CEL has no regular-expression groups), and an UpgradePath
// that checkUpgradePathCompiles refuses. Each "[*]" pairs
// old and new items by key as the engine does. Where the compiled rule may differ in
// messages: objects and lists are shown as "{…}" and "[…]" (CEL has no
// JSON encoder). A repeated key is reported at each later new item, as the
// engine does.
func compileTransitions(tr *rules.Transitions, c *compiler) ([]ruleCEL, error) {
	var out []ruleCEL
	for i, rt := range tr.Transitions {
		t := transitionCEL{rt}
		if t.ImageTag != nil && t.ImageTag.Pattern != nil {
			return nil, needsWebhook("transitions[%d] path %s: imageTag.tagPattern is not compiled: Kubernetes CEL has no regular-expression groups, so the version cannot be read out of the tag", i, t.Path)
		}
		if t.DefaultVersion != "" || len(t.Alternatives) > 0 {
			return nil, needsWebhook("transitions[%d] path %s: defaultVersion and alternatives are not compiled", i, t.Path)
		}
		if t.UpgradePath != nil {
			if err := checkUpgradePathCompiles(t.UpgradePath); err != nil {
				return nil, needsWebhook("transitions[%d] path %s: upgradePaths is not compiled: %v", i, t.Path, err)
			}
		}
		if t.Check == v1alpha1.NoRemoval && t.Path.HasWildcard() {
			return nil, needsWebhook("transitions[%d] path %s: NoRemoval below [*] is not compiled", i, t.Path)
		}
		for _, l := range t.Lists {
			if l.ByIndex {
				return nil, needsWebhook("transitions[%d] path %s: matchBy Index is not compiled", i, t.Path)
			}
			if slices.ContainsFunc(l.Keys, func(k string) bool { return strings.Contains(k, ".") }) {
				return nil, needsWebhook("transitions[%d] path %s: keys below an item's top level are not compiled", i, t.Path)
			}
		}
		expr, err := t.celPairs(c, t.Path, 0, "oldObject", "object", celPath{})
		if err != nil {
			return nil, fmt.Errorf("transitions[%d]: %w", i, err)
		}
		// One check per transition: each is a variable of its own, named
		// after its path and check, and type-checked alone.
		out = append(out, ruleCEL{findings: expr, check: transitionCheckName(t.Transition), summary: transitionSummary(t.Transition)})
	}
	return out, nil
}

// transitionCheckName names a transition's check by its path, without
// the "spec." most paths share, and its check: replicas_no_decrease.
func transitionCheckName(t *rules.Transition) string {
	return strings.TrimPrefix(t.Path.String(), "spec.") + "_" + string(t.Check)
}

// transitionCEL writes a transition's checks in CEL.
type transitionCEL struct{ *rules.Transition }

// listKeys are the keys that pair the items of the transition's list-th
// list: those the engine reads for each kind the policy matches, which
// must agree, since the compiled policy does not tell kinds apart. With
// no loaded CRD matched, every kind is one without list-map keys.
func (c *compiler) listKeys(t *rules.Transition, list int) ([]string, error) {
	kinds := c.kinds
	if len(kinds) == 0 {
		kinds = []runtimeschema.GroupVersionKind{{}}
	}
	keys := t.ListKeys(kinds[0], list)
	for _, gvk := range kinds[1:] {
		if other := t.ListKeys(gvk, list); !slices.Equal(other, keys) {
			return nil, needsWebhook("list %s has list-map keys %v in one matched kind and %v in another; set keys on the transition", t.Path, keys, other)
		}
	}
	return keys, nil
}

// celGet is the value at p (no [*]) in root as a CEL optional: none when a
// step is missing, null or of the wrong type.
func celGet(names *celNames, p rules.ObjectPath, root string) string {
	if len(p.Steps) == 0 {
		return fmt.Sprintf("(%[1]s != null ? optional.of(%[1]s) : optional.none())", root)
	}
	var build func(i int, value string) string
	build = func(i int, value string) string {
		if i == len(p.Steps) {
			return "optional.of(" + value + ")"
		}
		s, child := p.Steps[i], names.next("g")
		if s.Field != "" || (!s.Each && s.Index < 0) {
			name := s.Field
			if name == "" {
				name = s.Key
			}
			return fmt.Sprintf("(type(%[1]s) == map && %[2]s in %[1]s && %[1]s[%[2]s] != null ? cel.bind(%[3]s, %[1]s[%[2]s], %[4]s) : optional.none())",
				value, celString(name), child, build(i+1, child))
		}
		return fmt.Sprintf("(type(%[1]s) == list && size(%[1]s) > %[2]d && %[1]s[%[2]d] != null ? cel.bind(%[3]s, %[1]s[%[2]d], %[4]s) : optional.none())",
			value, s.Index, child, build(i+1, child))
	}
	return build(0, root)
}

// celFullSemver is a version that matches semverStrictRE with its "v"
// dropped and missing minor and patch numbers filled with 0, as
// rules.ParseSemanticVersion reads it, parsed by the semver library.
func celFullSemver(names *celNames, v string) string {
	s, core, n := names.next("s"), names.next("core"), names.next("n")
	return fmt.Sprintf(`cel.bind(%[1]s, %[4]s.startsWith("v") ? %[4]s.substring(1) : %[4]s, cel.bind(%[2]s, %[1]s.split("-")[0].split("+")[0], cel.bind(%[3]s, %[2]s.split(".").size(), semver(%[2]s + (%[3]s == 1 ? ".0.0" : %[3]s == 2 ? ".0" : "") + %[1]s.substring(%[2]s.size())))))`,
		s, core, n, v)
}

// celJudge is transition.judge in CEL, as a list(string) of findings, for
// the value at p below oldRoot and newRoot; oldAt and curAt are where those
// roots are (the object itself, or a list item).
func (t transitionCEL) celJudge(names *celNames, keys []string, p rules.ObjectPath, oldRoot, newRoot string, oldAt, curAt celPath) string {
	o, n, ov, nv := names.next("old"), names.next("new"), names.next("ov"), names.next("nv")
	path, oldPath := curAt.steps(p.Steps), oldAt.steps(p.Steps)
	check := string(t.Check)
	var judge string
	switch t.Check {
	case v1alpha1.NoRemoval:
		pathText, _ := oldPath.static() // NoRemoval has no [*]
		judge = t.celRemoval(names, oldPath, pathText, ov, n, keys)
	default:
		describe := celShowValue(ov)
		if t.Check != v1alpha1.Immutable {
			describe = fmt.Sprintf("(type(%[1]s) == string ? %[1]s : %[2]s)", ov, celShowValue(ov))
		}
		removed := fmt.Sprintf("[%s]", celFinding(path, fmt.Sprintf(`"Required value: was " + %s + %s`, describe, celString("; "+check+" does not allow removing it"))))
		var value string
		switch t.Check {
		case v1alpha1.Immutable:
			value = fmt.Sprintf(`(%[1]s == %[2]s ? [] : [%[3]s])`, ov, nv, celFinding(path, celInvalidBody(nv,
				fmt.Sprintf(`"is immutable once set; was " + %s + (%s ? "" : ", now " + %s)`, celShowValue(ov), celIsScalar(nv), celShowValue(nv)))))
		case v1alpha1.NoDecrease, v1alpha1.NoIncrease:
			was := celScalarString(ov)
			op, verb, bound := "< 0", "decrease", "or more"
			if t.Check == v1alpha1.NoIncrease {
				op, verb, bound = "> 0", "increase", "or less"
			}
			value = fmt.Sprintf(`(!%[1]s ? [] : !%[2]s ? [%[3]s] : %[4]s.compareTo(%[5]s) %[6]s ? [%[7]s] : [])`,
				celIsQuantity(ov), celIsQuantity(nv),
				celFinding(path, celInvalidBody(nv, fmt.Sprintf(`%s + %s`, celString("is not a number or quantity, which "+check+" compares; was "), was))),
				celQuantity(nv), celQuantity(ov), op,
				celFinding(path, celInvalidBody(nv, fmt.Sprintf(`"may not %s: was " + %s + "; allowed: " + %s + " %s"`, verb, was, was, bound))))
		case v1alpha1.NoDowngrade, v1alpha1.MaxMinorSkip, v1alpha1.MaxMajorSkip, v1alpha1.UpgradePath:
			value = t.celVersion(names, path, ov, nv)
		}
		judge = fmt.Sprintf("(!%s.hasValue() ? %s : cel.bind(%s, %s.value(), %s))", n, removed, nv, n, value)
	}
	return fmt.Sprintf("cel.bind(%s, %s, cel.bind(%s, %s, !%s.hasValue() ? [] : cel.bind(%s, %s.value(), %s)))",
		o, celGet(names, p, oldRoot), n, celGet(names, p, newRoot), o, ov, o, judge)
}

// splitWildcard splits p at its first [*]: the list's path and the path
// below each item. wildcards counts the [*] steps.
func splitWildcard(p rules.ObjectPath) (list, rest rules.ObjectPath, wildcards int) {
	at := -1
	for i, s := range p.Steps {
		if s.Each {
			wildcards++
			if at < 0 {
				at = i
			}
		}
	}
	if at < 0 {
		return p, rules.ObjectPath{}, 0
	}
	return rules.ObjectPath{Raw: p.Raw, Steps: p.Steps[:at]}, rules.ObjectPath{Raw: p.Raw, Steps: p.Steps[at+1:]}, wildcards
}

// celPairs is transition.walk in CEL for p below oldRoot and newRoot
// (found at curAt): the rest of the transition's path after its first
// passed lists. At each "[*]" every new item is paired with the old item
// of the same key (every key field a scalar) or, when it has no key, with
// the keyless old item at its position; items on one side only are not
// judged. A new item whose key an earlier new item has is a Duplicate
// finding and pairs with none; the first pairs with the first old item of
// its key.
func (t transitionCEL) celPairs(c *compiler, p rules.ObjectPath, passed int, oldRoot, newRoot string, curAt celPath) (string, error) {
	list, rest, wildcards := splitWildcard(p)
	if wildcards == 0 {
		var keys []string
		if t.Check == v1alpha1.NoRemoval {
			var err error
			if keys, err = c.listKeys(t.Transition, passed); err != nil {
				return "", err
			}
		}
		return t.celJudge(c.names, keys, p, oldRoot, newRoot, curAt, curAt), nil
	}
	keys, err := c.listKeys(t.Transition, passed)
	if err != nil {
		return "", err
	}
	names := c.names
	oldList, newList, olv, nlv := names.next("ol"), names.next("nl"), names.next("olv"), names.next("nlv")
	j, item, match, oi := names.next("j"), names.next("it"), names.next("m"), names.next("oi")
	earlier, k := names.next("dup"), names.next("k")
	listAt := curAt.steps(list.Steps)
	// Value checks report at the new item's index, as the engine does.
	keyed, err := t.celPairs(c, rest, passed+1, match+"[0]", item, listAt.indexVar(j))
	if err != nil {
		return "", err
	}
	positional, err := t.celPairs(c, rest, passed+1, olv+"["+j+"]", item, listAt.indexVar(j))
	if err != nil {
		return "", err
	}
	// An object without its keys is a finding; scalars pair by position.
	keyless := celFinding(listAt.indexVar(j), fmt.Sprintf(`"Required value: has no %s, which identifies the items of " + %s + %s`,
		strings.Join(keys, ", "), listAt.expr(), celString(" for "+string(t.Check)+"; give the items their keys, or set the transition's keys or matchBy: Index")))
	// A key an earlier new item has identifies nothing: rules.duplicateKey.
	var desc []string
	for _, key := range keys {
		desc = append(desc, fmt.Sprintf(`%s + %s`, celString(key+" "), celShowValue(item+"["+celString(key)+"]")))
	}
	duplicate := celFinding(listAt.indexVar(j), fmt.Sprintf(`"Duplicate value: " + %s + " is also the key of " + %s + ", so it identifies no item of " + %s + %s`,
		strings.Join(desc, ` + " and " + `), listAt.indexVar(earlier+"[0]").expr(), listAt.expr(), celString(" for "+string(t.Check)+"; give each item its own key")))
	perItem := fmt.Sprintf(`(%[1]s ? cel.bind(%[12]s, lists.range(%[9]s).filter(%[13]s, %[14]s), size(%[12]s) > 0 ? [%[15]s] : cel.bind(%[2]s, %[3]s.filter(%[4]s, %[5]s), size(%[2]s) > 0 ? %[6]s : [])) : !%[7]s ? [%[8]s] : (%[9]s < size(%[3]s) && %[10]s ? %[11]s : []))`,
		celHasKeys(item, keys), match, olv, oi, celSameKeys(oi, item, keys), keyed,
		celIsScalar(item), keyless, j, celIsScalar(olv+"["+j+"]"), positional,
		earlier, k, celSameKeys(nlv+"["+k+"]", item, keys), duplicate)
	return fmt.Sprintf(`cel.bind(%[1]s, %[3]s, cel.bind(%[2]s, %[4]s, %[1]s.hasValue() && %[2]s.hasValue() && type(%[1]s.value()) == list && type(%[2]s.value()) == list ? cel.bind(%[8]s, %[1]s.value(), cel.bind(%[9]s, %[2]s.value(), %[9]s.transformList(%[5]s, %[6]s, %[7]s))).flatten() : []))`,
		oldList, newList, celGet(names, list, oldRoot), celGet(names, list, newRoot), j, item, perItem, olv, nlv), nil
}

// celVersion is judgeVersion in CEL.
func (t transitionCEL) celVersion(names *celNames, path celPath, ov, nv string) string {
	if t.ImageTag != nil {
		return t.celImageVersion(names, path, ov, nv)
	}
	check := string(t.Check)
	was, now := names.next("wv"), names.next("nw")
	isVersion := func(v string) string {
		return fmt.Sprintf("((type(%[1]s) == string || %[2]s) && %[3]s.matches(%[4]s))", v, celIsNumber(v), t.celVersionCore(celScalarString(v)), celString(semverStrictRE))
	}
	wasRaw := celScalarString(ov)
	notVersion := celFinding(path, celTypeInvalidBody(nv, celString("must be a version, which "+check+" compares; was ")+" + "+wasRaw))
	notSemver := celFinding(path, celInvalidBody(nv, celString("is not a semantic version, which "+check+" compares; was ")+" + "+wasRaw))
	verdict := t.celVerdict(names, path, nv, was, now, wasRaw, celScalarString(nv), "")
	return fmt.Sprintf(`(!%[1]s ? [] : !(type(%[2]s) == string || %[3]s) ? [%[4]s] : !%[5]s ? [%[6]s] : cel.bind(%[7]s, %[8]s, cel.bind(%[9]s, %[10]s, %[11]s)))`,
		isVersion(ov), nv, celIsNumber(nv), notVersion, isVersion(nv), notSemver,
		was, celFullSemver(names, t.celVersionCore(celScalarString(ov))), now, celFullSemver(names, t.celVersionCore(celScalarString(nv))), verdict)
}

// celVersionCore is the version v (a CEL string) without its build, for
// build: Ordered; v itself otherwise.
func (t transitionCEL) celVersionCore(v string) string {
	if !t.BuildOrdered {
		return v
	}
	return v + `.split("-")[0]`
}

// celImageVersion is judgeVersion in CEL for a transition with imageTag
// (and no tagPattern, which stays with the webhook): the version is the
// tag up to its first "-", read after distribution/reference's grammar
// accepted the reference, as celImage reads a tag.
func (t transitionCEL) celImageVersion(names *celNames, path celPath, ov, nv string) string {
	check := string(t.Check)
	refRE, semverRE := celString(reference.ReferenceRegexp.String()), celString(semverStrictRE)
	on, ow, nn, nw := names.next("on"), names.next("ow"), names.next("nn"), names.next("nwr")
	was, now := names.next("wv"), names.next("nw")
	hasTag := func(named string) string {
		return fmt.Sprintf(`(%[1]s.lastIndexOf(":") > %[1]s.lastIndexOf("/"))`, named)
	}
	// With build: Ordered the whole tag is the version and its build.
	tagVersion := func(named string) string {
		tag := fmt.Sprintf(`%[1]s.substring(%[1]s.lastIndexOf(":") + 1)`, named)
		if t.BuildOrdered {
			return tag
		}
		return tag + `.split("-")[0]`
	}
	plus := func(v string) string { return t.celVersionCore(v) + `.replace("_", "+", 1)` }
	oldHasVersion := fmt.Sprintf(`(type(%[1]s) == string && %[1]s.matches(%[2]s) && %[3]s && %[4]s.matches(%[5]s))`, ov, refRE, hasTag(on), plus(ow), semverRE)
	finding := func(detail string) string { return "[" + celFinding(path, celInvalidBody(nv, detail)) + "]" }
	notImage := "[" + celFinding(path, celTypeInvalidBody(nv, celString("must be an image reference, whose tag's version "+check+" compares; was ")+" + "+ow)) + "]"
	badRef := finding(celString("is not a valid image reference: invalid reference format"))
	digestOnly := finding(fmt.Sprintf(`%s + %s + "; use name:tag@digest"`, celString("is pinned by digest only, so "+check+" cannot compare its version with "), ow))
	noTag := finding(fmt.Sprintf(`%s + %s`, celString("has no tag, so it is latest, which is no version that "+check+" can compare with "), ow))
	notSemver := finding(fmt.Sprintf(`"image version " + %s + %s + %s`, nw, celString(" is not a semantic version, which "+check+" compares; was "), ow))
	verdict := t.celVerdict(names, path, nv, was, now, ow, nw, `"image version " + `+nw+` + " "`)
	newSide := fmt.Sprintf(`(type(%[1]s) != string ? %[2]s : !%[1]s.matches(%[3]s) ? %[4]s : cel.bind(%[5]s, %[1]s.split("@")[0], !%[6]s ? (%[1]s.contains("@") ? %[7]s : %[8]s) : cel.bind(%[9]s, %[10]s, !%[11]s.matches(%[12]s) ? %[13]s : cel.bind(%[14]s, %[15]s, cel.bind(%[16]s, %[17]s, %[18]s)))))`,
		nv, notImage, refRE, badRef, nn, hasTag(nn), digestOnly, noTag, nw, tagVersion(nn), plus(nw), semverRE, notSemver,
		was, celFullSemver(names, plus(ow)), now, celFullSemver(names, plus(nw)), verdict)
	return fmt.Sprintf(`cel.bind(%[1]s, type(%[2]s) == string ? %[2]s.split("@")[0] : "", cel.bind(%[3]s, %[4]s, !%[5]s ? [] : %[6]s))`,
		on, ov, ow, tagVersion(on), oldHasVersion, newSide)
}

// celVerdict compares the parsed versions was and now (CEL semver
// values) as judgeVersion does; wasRaw and nowRaw are the versions as
// written, and subject, when set, a CEL string that starts each message
// but UpgradePath's, which names both versions.
func (t transitionCEL) celVerdict(names *celNames, path celPath, nv, was, now, wasRaw, nowRaw, subject string) string {
	if t.Check == v1alpha1.UpgradePath {
		return celUpgradePath(names, t.UpgradePath, was, now, wasRaw, nowRaw, func(detail string) string {
			return "[" + celFinding(path, celInvalidBody(nv, detail)) + "]"
		})
	}
	invalid := func(detail string) string {
		if subject != "" {
			detail = subject + " + " + detail
		}
		return "[" + celFinding(path, celInvalidBody(nv, detail)) + "]"
	}
	if t.Check == v1alpha1.NoDowngrade {
		same := "[]"
		if t.BuildOrdered {
			same = celBuildVerdict(names, wasRaw, nowRaw, invalid)
		}
		return fmt.Sprintf(`(%s.compareTo(%s) < 0 ? %s : %s.compareTo(%s) == 0 ? %s : [])`, now, was,
			invalid(fmt.Sprintf(`"may not be downgraded: was " + %s + "; allowed: " + %s + " or later"`, wasRaw, wasRaw)), now, was, same)
	}
	skip := t.MaxMinorSkip
	highest := fmt.Sprintf(`string(%[1]s.major()) + "." + string(%[1]s.minor() + %[2]d) + ".x"`, was, skip+1)
	major := invalid(fmt.Sprintf(`"may not change the major version: was " + %s + "; allowed: " + string(%s.major()) + ".x up to " + %s`, wasRaw, was, highest))
	k, count := names.next("k"), names.next("skipped")
	minor := func(offset string) string {
		return fmt.Sprintf(`string(%[1]s.major()) + "." + string(%[1]s.minor() + %[2]s)`, was, offset)
	}
	skipped := fmt.Sprintf(`(%[1]s == 1 ? "1 minor version (" + %[2]s + ")" : %[1]s > 5 ? string(%[1]s) + " minor versions (" + %[2]s + " to " + %[3]s + ")" : string(%[1]s) + " minor versions (" + lists.range(%[1]s).map(%[4]s, %[5]s).join(", ") + ")")`,
		count, minor("1"), minor(count), k, minor(k+" + 1"))
	skips := invalid(fmt.Sprintf(`"skips " + %s + ": was " + %s + "; allowed: at most %d skipped, up to " + %s`, skipped, wasRaw, skip, highest))
	sameMajor := fmt.Sprintf(`cel.bind(%[1]s, %[2]s.minor() - %[3]s.minor() - 1, %[1]s > %[4]d ? %[5]s : [])`, count, now, was, skip, skips)
	if t.MaxMajorSkip == nil {
		return fmt.Sprintf(`(%s.major() != %s.major() ? %s : %s)`, now, was, major, sameMajor)
	}
	// Major versions skipped: "1 major version (7)", as skippedMajors.
	majorSkip := *t.MaxMajorSkip
	mk, majors := names.next("k"), names.next("majors")
	skippedMajors := fmt.Sprintf(`(%[1]s == 1 ? "1 major version (" + string(%[2]s.major() + 1) + ")" : %[1]s > 5 ? string(%[1]s) + " major versions (" + string(%[2]s.major() + 1) + " to " + string(%[3]s.major() - 1) + ")" : string(%[1]s) + " major versions (" + lists.range(%[1]s).map(%[4]s, string(%[2]s.major() + %[4]s + 1)).join(", ") + ")")`,
		majors, was, now, mk)
	majorSkips := invalid(fmt.Sprintf(`"skips " + %s + ": was " + %s + "; allowed: at most %d skipped, up to " + string(%s.major() + %d) + ".x"`, skippedMajors, wasRaw, majorSkip, was, majorSkip+1))
	if t.Check == v1alpha1.MaxMajorSkip {
		return fmt.Sprintf(`cel.bind(%[1]s, %[2]s.major() - %[3]s.major() - 1, %[1]s > %[4]d ? %[5]s : [])`, majors, now, was, majorSkip, majorSkips)
	}
	// Into a new major version, its minor versions below the new one are
	// skipped, as minorsFrom(major, 0, minor) describes them.
	nk := names.next("k")
	newMajor := fmt.Sprintf(`string(%s.major())`, now)
	intoMinors := fmt.Sprintf(`(%[1]s.minor() == 1 ? "1 minor version (" + %[2]s + ".0)" : %[1]s.minor() > 5 ? string(%[1]s.minor()) + " minor versions (" + %[2]s + ".0 to " + %[2]s + "." + string(%[1]s.minor() - 1) + ")" : string(%[1]s.minor()) + " minor versions (" + lists.range(%[1]s.minor()).map(%[3]s, %[2]s + "." + string(%[3]s)).join(", ") + ")")`,
		now, newMajor, nk)
	intoSkips := invalid(fmt.Sprintf(`"skips " + %s + ": was " + %s + "; allowed: at most %d skipped, up to " + %s + ".%d.x"`, intoMinors, wasRaw, skip, newMajor, skip))
	return fmt.Sprintf(`cel.bind(%[1]s, %[2]s.major() - %[3]s.major() - 1, %[1]s > %[4]d ? %[5]s : %[1]s >= 0 ? (%[2]s.minor() > %[6]d ? %[7]s : []) : %[2]s.major() < %[3]s.major() ? [] : %[8]s)`,
		majors, now, was, majorSkip, majorSkips, skip, intoSkips, sameMajor)
}

// celRemoval is judgeRemoval in CEL.
func (t transitionCEL) celRemoval(names *celNames, path celPath, pathText, ov, n string, keys []string) string {
	k, i, item, nl, x := names.next("k"), names.next("i"), names.next("item"), names.next("nl"), names.next("x")
	// Maps: every key of the old value with a value that the new one lacks.
	nm := names.next("nm")
	mapCase := fmt.Sprintf(`cel.bind(%[1]s, %[2]s.hasValue() && type(%[2]s.value()) == map ? %[2]s.value() : {}, %[3]s.map(%[4]s, %[4]s).sort().filter(%[4]s, %[3]s[%[4]s] != null && !(%[4]s in %[1]s && %[1]s[%[4]s] != null)).map(%[4]s, %[5]s + "[" + %[4]s + "]: Forbidden: key " + strings.quote(%[4]s) + " was removed; NoRemoval keeps every key of %[6]s"))`,
		nm, n, ov, k, celString(pathText), pathText)
	var desc []string
	for _, key := range keys {
		desc = append(desc, fmt.Sprintf(`%s + %s`, celString(key+" "), celShowValue(item+"["+celString(key)+"]")))
	}
	removed := func(what string) string {
		return fmt.Sprintf(`[%s + "[" + string(%s) + "]: Forbidden: " + %s + %s]`, celString(pathText), i, what, celString(" was removed; NoRemoval keeps every item of "+pathText))
	}
	// An old object without its keys cannot be told removed or kept.
	keyless := fmt.Sprintf(`[%[1]s + "[" + string(%[2]s) + "]: Forbidden: item " + string(%[2]s) + %[3]s]`, celString(pathText), i,
		celString(" has no "+strings.Join(keys, ", ")+", which identifies the items of "+pathText+", so NoRemoval cannot tell whether it was removed; give the items their keys, or set the transition's keys or matchBy: Index"))
	perItem := fmt.Sprintf(`(%[1]s ? (%[2]s.exists(%[3]s, %[3]s == %[4]s) ? [] : %[5]s) : %[6]s ? (%[2]s.exists(%[3]s, %[7]s) ? [] : %[8]s) : %[9]s)`,
		celIsScalar(item), nl, x, item, removed(`"value " + `+celShowValue(item)),
		celHasKeys(item, keys), celSameKeys(x, item, keys), removed(`"item with " + `+strings.Join(desc, ` + " and " + `)),
		keyless)
	listCase := fmt.Sprintf(`cel.bind(%[1]s, %[2]s.hasValue() && type(%[2]s.value()) == list ? %[2]s.value() : [], %[3]s.transformList(%[4]s, %[5]s, %[6]s).flatten())`,
		nl, n, ov, i, item, perItem)
	scalarCase := fmt.Sprintf(`(%s.hasValue() ? [] : [%s])`, n, celFinding(path, fmt.Sprintf(`"Forbidden: was " + %s + "; NoRemoval does not allow removing it"`, celShowValue(ov))))
	return fmt.Sprintf(`(type(%[1]s) == map ? %[2]s : type(%[1]s) == list ? %[3]s : %[4]s)`, ov, mapCase, listCase, scalarCase)
}

// celHasKeys is true when v is an item of a list-map: a map holding every
// one of keys, each a scalar.
func celHasKeys(v string, keys []string) string {
	parts := []string{fmt.Sprintf("type(%s) == map", v)}
	for _, key := range keys {
		parts = append(parts, fmt.Sprintf(`%[2]s in %[1]s && %[1]s[%[2]s] != null && %[3]s`, v, celString(key), celIsScalar(v+"["+celString(key)+"]")))
	}
	return "(" + strings.Join(parts, " && ") + ")"
}

// celSameKeys is true when a is an item of a list-map whose keys equal b's.
func celSameKeys(a, b string, keys []string) string {
	parts := []string{celHasKeys(a, keys)}
	for _, key := range keys {
		parts = append(parts, fmt.Sprintf(`%[1]s[%[3]s] == %[2]s[%[3]s]`, a, b, celString(key)))
	}
	return "(" + strings.Join(parts, " && ") + ")"
}
