package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/resource"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// transitionsKind restricts how fields may change on UPDATE: the changes
// no schema catches because each side is valid alone (a volume shrink, a
// version jump, a removed user).
//
// Decisions:
//   - A value that was not set may be set to anything: every check is
//     about changing what exists.
//   - A value that was set and is now missing is reported by every value
//     check (Immutable, NoDecrease, NoIncrease, NoDowngrade, MaxMinorSkip,
//     MaxMajorSkip, UpgradePath):
//     what the controller does without it cannot be known here, so the
//     rule fails closed. Schema defaults are applied before the rule runs,
//     so a defaulted field that is cleared is compared as its default.
//   - An old value that cannot be read (not a quantity, not a version) is
//     nothing sound to protect: any new value is allowed, so a bad value can
//     be fixed. A new value that cannot be read is a finding.
//   - "[*]" compares only list items present on both sides, matched by key
//     (each list of the path has its own keys): a new item has no old
//     value, and a removed item is NoRemoval's business. An object item
//     lacking a key field is a finding, never matched by position instead:
//     that would compare the wrong items. Lists that nothing identifies
//     say matchBy: Index. Scalar items pair by position.
//   - A key that repeats identifies nothing either: a list keyed by a rule
//     is no list-map, so the CRD lets duplicates in. A new item whose key
//     an earlier item has is a finding (Duplicate, at that item, as the
//     API server reports a list-map's), never paired: pairing it with
//     nothing would leave it unchecked, and a swap would flip the verdict.
//     Of old items sharing a key, the first is the one compared.
//   - Immutable compares JSON values exactly (numbers by value): "1Gi" to
//     "1024Mi" is a change, as for the API server's self == oldSelf.
//   - MaxMinorSkip limits upgrades and forbids any change of the major
//     version; going down within a major version is NoDowngrade's business.
//     From 8.0 to 8.2 skips one minor version (8.1); with maxMinorSkip 1
//     that is allowed and 8.3 is not.
//   - MaxMajorSkip limits major upgrades alone: 6.0 to 8.0 skips one
//     major version (7). Going down is NoDowngrade's business.
//   - MaxMinorSkip with maxMajorSkip allows major upgrades (and leaves
//     going down a major version to NoDowngrade). Into a new major
//     version, its minor versions below the new one count as skipped, and
//     the old minor version does not count: 3.9 to 4.0 skips none, 3.7 to
//     4.0 none either, 3.9 to 4.2 skips 4.0 and 4.1. Which minor version is
//     the last of a major version ("upgrade to 3.9 first") is known only
//     once the next major version ships, so no count can say it;
//     UpgradePath's steps can.
//   - UpgradePath allows only the steps its upgradePaths list (see
//     UpgradePath): vendors count majors their own way (MySQL 5.7 to 8.0
//     is one step), so a list says what no count can.
//   - NoDowngrade with build: Ordered orders a vendor's build after the
//     version's first "-" (8.0.39-30.1 < 8.0.39-30.2) between equal
//     versions. An old build that is no numbers protects nothing; a new
//     one, or none after one, is a finding: nothing shows it is no
//     downgrade.
//   - With imageTag, the value is an image reference and the version is
//     read from its tag (see ImageTagVersion). An old value with no
//     version to read (no tag, digest only, a tag the pattern does not
//     match) protects nothing, as any unreadable old value; a new one is a
//     finding, at the image, naming what was missing.
var transitionsKind = ruleKind{
	name:       "transitions",
	configured: func(r *v1alpha1.Rule) bool { return len(r.Transitions) > 0 },
	compile:    compileTransitions,
}

// DefaultListKeys identify list items when neither the rule nor the CRD
// names keys: most Kubernetes lists of objects are keyed by name.
var DefaultListKeys = []string{"name"}

var transitionChecks = []v1alpha1.TransitionCheck{
	v1alpha1.Immutable, v1alpha1.NoDecrease, v1alpha1.NoIncrease,
	v1alpha1.NoDowngrade, v1alpha1.MaxMinorSkip, v1alpha1.MaxMajorSkip, v1alpha1.NoRemoval,
	v1alpha1.UpgradePath,
}

// versionChecks are the checks that compare versions, and may read them
// from an image tag.
var versionChecks = []v1alpha1.TransitionCheck{v1alpha1.NoDowngrade, v1alpha1.MaxMinorSkip, v1alpha1.MaxMajorSkip, v1alpha1.UpgradePath}

// listMapKeysSource answers the x-kubernetes-list-map-keys of the list at
// path (object fields and map keys; list items are stepped through) in the
// schema of gvk, or nil when it has none or gvk is unknown.
type listMapKeysSource interface {
	ListMapKeys(gvk runtimeschema.GroupVersionKind, path ...string) []string
}

type Transitions struct {
	Transitions []*Transition
}

// ImageTag is a transition's imageTag: Pattern is nil when the version is
// the tag up to its first "-".
type ImageTag struct {
	Pattern *TagPattern
}

type Transition struct {
	Path         ObjectPath
	Check        v1alpha1.TransitionCheck
	MaxMinorSkip uint64
	// MaxMajorSkip is set for check MaxMajorSkip, and for MaxMinorSkip
	// when it allows major upgrades.
	MaxMajorSkip *uint64
	// ImageTag is set when the value is an image reference whose tag
	// holds the version.
	ImageTag *ImageTag
	// UpgradePath is set for check UpgradePath.
	UpgradePath *UpgradePath
	// BuildOrdered is set when NoDowngrade orders vendor build suffixes
	// (build: Ordered).
	BuildOrdered bool
	// DefaultVersion is the version an absent value means; "" for none.
	DefaultVersion string
	// Alternatives are other places that hold the version (see
	// version_places.go).
	Alternatives []VersionPlace
	// Lists say how the items of each list of the path pair: one per
	// "[*]", outermost first, and one more for the list NoRemoval checks.
	Lists []listIdentity
	// schemas is nil when no CRDs are loaded.
	schemas listMapKeysSource
	// schemaKeys caches the CRD's keys per kind and list. Kinds are known
	// only from requests, so this is filled lazily; it holds at most one
	// entry per served kind and list of this path.
	schemaKeys sync.Map // schemaKeysID to []string
}

// schemaKeysID is a list of a transition's path, by its index in Lists,
// in objects of one kind.
type schemaKeysID struct {
	gvk  runtimeschema.GroupVersionKind
	list int
}

func compileTransitions(spec *v1alpha1.Rule, path *field.Path, env *compileEnv) (Rule, field.ErrorList) {
	path = path.Child("transitions")
	var schemas listMapKeysSource
	if env != nil && env.schemas != nil {
		schemas = env.schemas
	}
	r := &Transitions{}
	var errs field.ErrorList
	seen := map[[2]string]int{}
	for i, cfg := range spec.Transitions {
		at := path.Index(i)
		t := &Transition{Check: cfg.Check, schemas: schemas}
		p, err := parsePath(cfg.Path)
		if err != nil {
			errs = append(errs, field.Invalid(at.Child("path"), cfg.Path, err.Error()))
		}
		t.Path = p
		if err == nil {
			var listErrs field.ErrorList
			t.Lists, listErrs = compileListIdentities(&cfg, p, at, env)
			errs = append(errs, listErrs...)
		}
		if !slices.Contains(transitionChecks, cfg.Check) {
			errs = append(errs, field.NotSupported(at.Child("check"), cfg.Check, transitionChecks))
		}
		switch {
		case cfg.Check == v1alpha1.MaxMinorSkip && cfg.MaxMinorSkip == nil:
			errs = append(errs, field.Required(at.Child("maxMinorSkip"), "maxMinorSkip is required for check MaxMinorSkip"))
		case cfg.Check == v1alpha1.MaxMinorSkip && *cfg.MaxMinorSkip < 0:
			errs = append(errs, field.Invalid(at.Child("maxMinorSkip"), *cfg.MaxMinorSkip, "must be 0 or more"))
		case cfg.Check == v1alpha1.MaxMinorSkip:
			t.MaxMinorSkip = uint64(*cfg.MaxMinorSkip)
		case cfg.MaxMinorSkip != nil:
			errs = append(errs, field.Forbidden(at.Child("maxMinorSkip"), "may only be set for check MaxMinorSkip"))
		}
		switch {
		case cfg.Check == v1alpha1.MaxMajorSkip && cfg.MaxMajorSkip == nil:
			errs = append(errs, field.Required(at.Child("maxMajorSkip"), "maxMajorSkip is required for check MaxMajorSkip"))
		case cfg.MaxMajorSkip != nil && cfg.Check != v1alpha1.MaxMajorSkip && cfg.Check != v1alpha1.MaxMinorSkip:
			errs = append(errs, field.Forbidden(at.Child("maxMajorSkip"), "may only be set for checks MaxMajorSkip and MaxMinorSkip"))
		case cfg.MaxMajorSkip != nil && *cfg.MaxMajorSkip < 0:
			errs = append(errs, field.Invalid(at.Child("maxMajorSkip"), *cfg.MaxMajorSkip, "must be 0 or more"))
		case cfg.MaxMajorSkip != nil:
			n := uint64(*cfg.MaxMajorSkip)
			t.MaxMajorSkip = &n
		}
		switch {
		case cfg.Check == v1alpha1.UpgradePath && len(cfg.UpgradePaths) == 0:
			errs = append(errs, field.Required(at.Child("upgradePaths"), "upgradePaths is required for check UpgradePath"))
		case cfg.Check == v1alpha1.UpgradePath:
			u, pathErrs := compileUpgradePath(cfg.UpgradePaths, at.Child("upgradePaths"))
			errs = append(errs, pathErrs...)
			t.UpgradePath = u
		case len(cfg.UpgradePaths) > 0:
			errs = append(errs, field.Forbidden(at.Child("upgradePaths"), "may only be set for check UpgradePath"))
		}
		switch {
		case cfg.Build == "":
		case cfg.Check != v1alpha1.NoDowngrade:
			errs = append(errs, field.Forbidden(at.Child("build"), "may only be set for check NoDowngrade, which orders builds"))
		case cfg.Build != v1alpha1.BuildOrdered:
			errs = append(errs, field.NotSupported(at.Child("build"), cfg.Build, []v1alpha1.VersionBuild{v1alpha1.BuildOrdered}))
		default:
			t.BuildOrdered = true
		}
		if cfg.ImageTag != nil {
			if !slices.Contains(versionChecks, cfg.Check) {
				errs = append(errs, field.Forbidden(at.Child("imageTag"), "may only be set for checks NoDowngrade, MaxMinorSkip, MaxMajorSkip and UpgradePath, which compare versions"))
			}
			pattern, patternErrs := compileTagPattern(cfg.ImageTag.TagPattern, at.Child("imageTag", "tagPattern"))
			errs = append(errs, patternErrs...)
			t.ImageTag = &ImageTag{Pattern: pattern}
		}
		errs = append(errs, t.compileVersionPlaces(&cfg, at)...)
		id := [2]string{cfg.Path, string(cfg.Check)}
		if prev, ok := seen[id]; ok {
			e := field.Duplicate(at, cfg.Path)
			e.Detail = fmt.Sprintf("transitions[%d] already checks %s on this path", prev, cfg.Check)
			errs = append(errs, e)
		}
		seen[id] = i
		r.Transitions = append(r.Transitions, t)
	}
	return r, errs
}

func (r *Transitions) Operations() []v1alpha1.Operation { return onlyUpdate }

func (r *Transitions) Check(_ context.Context, req *Request) ([]Finding, error) {
	if req.Object == nil || req.OldObject == nil {
		return nil, nil
	}
	gvk := req.Object.GroupVersionKind()
	var errs field.ErrorList
	for _, t := range r.Transitions {
		old := side{value: req.OldObject.Object, found: true}
		cur := side{value: req.Object.Object, found: true}
		if len(t.Alternatives) > 0 {
			errs = append(errs, t.judgePlaces(old.value.(map[string]any), cur.value.(map[string]any))...)
			continue
		}
		t.walk(gvk, 0, 0, old, cur, &errs, func(old, cur side, list int) {
			errs = append(errs, t.judge(gvk, old, cur, list)...)
		})
	}
	return findings(errs...), nil
}

// side is one object's value at a place of the path. path is where the
// value is, or would be when it is not found.
type side struct {
	value any
	found bool
	path  *field.Path
}

// child steps into a map entry; keyed tells whether the path prints it as
// a map key ("[app]") rather than a field (".app").
func (s side) child(name string, keyed bool) side {
	next := side{path: childPath(s.path, name)}
	if keyed {
		next.path = s.path.Key(name)
	}
	if m, ok := s.value.(map[string]any); ok && s.found {
		next.value = m[name]
		next.found = next.value != nil // null is unset, as for the API server
	}
	return next
}

func (s side) index(i int) side {
	next := side{path: s.path.Index(i)}
	if list, ok := s.value.([]any); ok && s.found && i < len(list) {
		next.value, next.found = list[i], list[i] != nil
	}
	return next
}

// walk follows the path through the old and the new object together and
// calls fn for each place it reaches in either. list counts the lists
// passed, and new items nothing identifies are reported to errs.
func (t *Transition) walk(gvk runtimeschema.GroupVersionKind, i, list int, old, cur side, errs *field.ErrorList, fn func(old, cur side, list int)) {
	if !old.found && !cur.found {
		return
	}
	if i == len(t.Path.Steps) {
		fn(old, cur, list)
		return
	}
	step := t.Path.Steps[i]
	switch {
	case step.Field != "":
		t.walk(gvk, i+1, list, old.child(step.Field, false), cur.child(step.Field, false), errs, fn)
	case step.Index >= 0:
		t.walk(gvk, i+1, list, old.index(step.Index), cur.index(step.Index), errs, fn)
	case step.Each:
		oldList, oldOK := old.value.([]any)
		curList, curOK := cur.value.([]any)
		if !old.found || !cur.found || !oldOK || !curOK {
			return // items on one side only have nothing to compare
		}
		identity, keys := t.Lists[list], t.ListKeys(gvk, list)
		for _, m := range matchItems(oldList, curList, keys, identity.ByIndex) {
			switch {
			case m.old >= 0 && m.cur >= 0:
				t.walk(gvk, i+1, list+1, old.index(m.old), cur.index(m.cur), errs, fn)
			case m.cur >= 0 && m.keyless:
				*errs = append(*errs, field.Required(cur.index(m.cur).path, fmt.Sprintf("has no %s, which identifies the items of %s for %s; give the items their keys, or set the transition's keys or matchBy: Index", strings.Join(keys, ", "), cur.path, t.Check)))
			case m.cur >= 0 && m.repeats >= 0:
				*errs = append(*errs, duplicateKey(cur.index(m.cur).path, cur.path.Index(m.repeats), cur.path, m.key, t.Check))
			}
		}
	default:
		t.walk(gvk, i+1, list, old.child(step.Key, true), cur.child(step.Key, true), errs, fn)
	}
}

// ListKeys are the keys that identify the items of the path's list-th
// list in objects of kind gvk: the rule's, else the CRD's list-map keys
// at the list's SchemaPath, else DefaultListKeys. A kind no loaded CRD
// describes, such as the zero kind, has no list-map keys.
func (t *Transition) ListKeys(gvk runtimeschema.GroupVersionKind, list int) []string {
	if keys := t.Lists[list].Keys; len(keys) > 0 {
		return keys
	}
	if t.schemas == nil {
		return DefaultListKeys
	}
	id := schemaKeysID{gvk, list}
	if keys, ok := t.schemaKeys.Load(id); ok {
		return keys.([]string)
	}
	keys := t.schemas.ListMapKeys(gvk, t.Lists[list].SchemaPath...)
	if len(keys) == 0 {
		keys = DefaultListKeys
	}
	t.schemaKeys.Store(id, keys)
	return keys
}

// itemMatch pairs an old list item with a new one; -1 marks an item that
// is on one side only.
type itemMatch struct {
	old, cur int
	// key describes the item's key (`name "app"`), "" when it has none.
	key string
	// keyless marks an object item without its keys: it pairs with none.
	keyless bool
	// repeats is the index of the earlier new item with the same key, for
	// a new item that pairs with none because of it; else -1.
	repeats int
}

// duplicateKey is the finding for a new item at path whose key an
// earlier item (at first) of list has: the API server's Duplicate, with
// what it means for the check.
func duplicateKey(path, first, list *field.Path, key string, check v1alpha1.TransitionCheck) *field.Error {
	e := field.Duplicate(path, field.OmitValueType{})
	e.Detail = fmt.Sprintf("%s is also the key of %s, so it identifies no item of %s for %s; give each item its own key", key, first, list, check)
	return e
}

// matchItems pairs list items: by index, or by keys. By keys, objects
// that have every key field (with a scalar value) pair by key, objects
// without pair with nothing (keyless), and scalar items by position.
// Matches come in the new list's order, then the old items left over.
// Items with the same key (which a list-map forbids, but a list keyed by
// the rule may have): the first new one pairs with the first old one,
// later new ones pair with none and say which item they repeat, and later
// old ones are left over only when the first is (its key is gone).
func matchItems(oldList, curList []any, keys []string, byIndex bool) []itemMatch {
	var out []itemMatch
	if byIndex {
		for j := range curList {
			m := itemMatch{old: -1, cur: j, repeats: -1}
			if j < len(oldList) {
				m.old = j
			}
			out = append(out, m)
		}
		for i := len(curList); i < len(oldList); i++ {
			out = append(out, itemMatch{old: i, cur: -1, repeats: -1})
		}
		return out
	}
	oldByKey := map[string]int{} // the first old item of each key
	oldKeys := make([]string, len(oldList))
	oldFirst := make([]int, len(oldList)) // the first old item with this item's key
	for i, item := range oldList {
		id, desc := itemKey(item, keys)
		oldKeys[i], oldFirst[i] = desc, i
		if desc == "" {
			continue
		}
		if first, ok := oldByKey[id]; ok {
			oldFirst[i] = first
			continue
		}
		oldByKey[id] = i
	}
	used := make([]bool, len(oldList))
	curByKey := map[string]int{}
	for j, item := range curList {
		m := itemMatch{old: -1, cur: j, repeats: -1}
		id, desc := itemKey(item, keys)
		first, repeated := curByKey[id]
		if desc != "" && !repeated {
			curByKey[id] = j
		}
		switch same, ok := oldByKey[id]; {
		case desc != "" && repeated:
			m.key, m.repeats = desc, first
		case desc != "" && ok:
			m.old, m.key = same, desc
		case desc == "" && !isScalar(item):
			m.keyless = true
		case desc == "" && j < len(oldList) && !used[j] && isScalar(oldList[j]):
			m.old = j
		}
		if m.old >= 0 {
			used[m.old] = true
		}
		out = append(out, m)
	}
	for i := range oldList {
		if !used[i] && !used[oldFirst[i]] {
			out = append(out, itemMatch{old: i, cur: -1, repeats: -1, key: oldKeys[i], keyless: oldKeys[i] == "" && !isScalar(oldList[i])})
		}
	}
	return out
}

// itemKey is an item's identity under keys and its description for
// messages; both are "" when the item lacks a key field.
func itemKey(item any, keys []string) (id, desc string) {
	m, ok := item.(map[string]any)
	if !ok {
		return "", ""
	}
	values := make([]any, len(keys))
	parts := make([]string, len(keys))
	for i, k := range keys {
		v, ok := keyValue(m, k)
		if !ok || !isScalar(v) || v == nil {
			return "", ""
		}
		values[i], parts[i] = v, k+" "+showValue(v)
	}
	b, _ := json.Marshal(values) // scalars always marshal
	return string(b), strings.Join(parts, " and ")
}

// judge applies the check to one place.
func (t *Transition) judge(gvk runtimeschema.GroupVersionKind, old, cur side, list int) field.ErrorList {
	if !old.found && t.DefaultVersion == "" {
		return nil // setting a value the first time is not a transition
	}
	if t.Check == v1alpha1.NoRemoval {
		return t.judgeRemoval(gvk, old, cur, list)
	}
	if !cur.found && t.DefaultVersion == "" {
		return field.ErrorList{field.Required(cur.path, fmt.Sprintf("was %s; %s does not allow removing it", t.describe(old.value), t.Check))}
	}
	switch t.Check {
	case v1alpha1.Immutable:
		if !jsonEqual(old.value, cur.value) {
			msg := "is immutable once set; was " + showValue(old.value)
			if !isScalar(cur.value) {
				msg += ", now " + showValue(cur.value) // the error shows no value
			}
			return field.ErrorList{field.Invalid(cur.path, badValue(cur.value), msg)}
		}
	case v1alpha1.NoDecrease, v1alpha1.NoIncrease:
		return t.judgeAmount(old, cur)
	case v1alpha1.NoDowngrade, v1alpha1.MaxMinorSkip, v1alpha1.MaxMajorSkip, v1alpha1.UpgradePath:
		return t.judgeVersion(old, cur)
	}
	return nil
}

// describe prints a value in this check's terms: amounts and versions as
// written ("was 10Gi"), anything else as JSON ("was \"fast\"").
func (t *Transition) describe(v any) string {
	if s, ok := v.(string); ok && t.Check != v1alpha1.Immutable && t.Check != v1alpha1.NoRemoval {
		return s
	}
	return showValue(v)
}

// judgeAmount compares numbers and quantities exactly, as rationals:
// "10Gi" to "9Gi" is a decrease, 1Gi to "1024Mi" is none, and an integer
// against a quantity compares as quantities.
func (t *Transition) judgeAmount(old, cur side) field.ErrorList {
	was, wasRaw, ok := amount(old.value)
	if !ok {
		return nil
	}
	now, _, ok := amount(cur.value)
	if !ok {
		return field.ErrorList{field.Invalid(cur.path, badValue(cur.value), fmt.Sprintf("is not a number or quantity, which %s compares; was %s", t.Check, wasRaw))}
	}
	switch c := now.Cmp(was); {
	case t.Check == v1alpha1.NoDecrease && c < 0:
		return field.ErrorList{field.Invalid(cur.path, badValue(cur.value), fmt.Sprintf("may not decrease: was %s; allowed: %s or more", wasRaw, wasRaw))}
	case t.Check == v1alpha1.NoIncrease && c > 0:
		return field.ErrorList{field.Invalid(cur.path, badValue(cur.value), fmt.Sprintf("may not increase: was %s; allowed: %s or less", wasRaw, wasRaw))}
	}
	return nil
}

// judgeVersion compares semantic versions by precedence: a "v" prefix and
// build metadata do not count, a pre-release is older than its release,
// and missing minor and patch numbers are zero.
func (t *Transition) judgeVersion(old, cur side) field.ErrorList {
	return t.compareVersions(versionAt{side: old, tag: t.ImageTag}, versionAt{side: cur, tag: t.ImageTag})
}

// compareVersions judges the version of old against cur's, each read
// from its place: an absent one is DefaultVersion, and versions of two
// different places compare to the precision both write.
func (t *Transition) compareVersions(oldAt, curAt versionAt) field.ErrorList {
	old, cur := oldAt.side, curAt.side
	wasRaw, ok := t.DefaultVersion, true
	if old.found {
		wasRaw, ok = t.oldVersion(old.value, oldAt.tag)
	}
	if !ok {
		return nil
	}
	wasCore, wasBuild := wasRaw, ""
	if t.BuildOrdered {
		wasCore, wasBuild = splitBuild(wasRaw)
	}
	was, err := parseVersion(wasCore, oldAt.tag != nil && old.found)
	if err != nil {
		return nil
	}
	// A finding says where the old version came from, when not from the
	// place it is reported at.
	source := ""
	if !old.found {
		source = fmt.Sprintf("; %s was not set, so it was defaultVersion %s", old.path, wasRaw)
	} else if oldAt.place != curAt.place {
		source = fmt.Sprintf("; %s was read at %s", wasRaw, old.path)
	}
	nowRaw, subject := t.DefaultVersion, fmt.Sprintf("is not set, so it is defaultVersion %s, which ", t.DefaultVersion)
	var errs field.ErrorList
	if cur.found {
		nowRaw, errs = t.newVersion(cur, wasRaw, curAt.tag)
		subject = ""
	}
	if errs != nil {
		return errs
	}
	nowCore, nowBuild := nowRaw, ""
	if t.BuildOrdered {
		nowCore, nowBuild = splitBuild(nowRaw)
	}
	now, err := parseVersion(nowCore, curAt.tag != nil && cur.found)
	if err != nil {
		if curAt.tag != nil {
			return field.ErrorList{field.Invalid(cur.path, cur.value, fmt.Sprintf("image version %s is not a semantic version, which %s compares; was %s", nowRaw, t.Check, wasRaw))}
		}
		return field.ErrorList{field.Invalid(cur.path, cur.value, fmt.Sprintf("is not a semantic version, which %s compares; was %s", t.Check, wasRaw))}
	}
	if oldAt.place != curAt.place && sameToPrecision(was, now) {
		return nil // a catalog's major 16 after image 16.4 is no change
	}
	// An image's finding says which version of the reference it judged.
	if curAt.tag != nil && cur.found {
		subject = "image version " + nowRaw + " "
	}
	finding := func(msg string) field.ErrorList {
		if !cur.found {
			return field.ErrorList{field.Required(cur.path, msg)}
		}
		return field.ErrorList{field.Invalid(cur.path, cur.value, msg)}
	}
	invalid := func(format string, args ...any) field.ErrorList {
		return finding(subject + fmt.Sprintf(format, args...) + source)
	}
	switch {
	case t.Check == v1alpha1.UpgradePath:
		if msg := t.UpgradePath.judge(was, now, wasRaw, nowRaw); msg != "" {
			return finding(msg + source)
		}
		return nil
	case t.Check == v1alpha1.NoDowngrade:
		c := now.Compare(was.Version)
		if c < 0 {
			return invalid("may not be downgraded: was %s; allowed: %s or later", wasRaw, wasRaw)
		}
		if c == 0 && t.BuildOrdered {
			return t.judgeBuild(wasRaw, wasBuild, nowBuild, invalid)
		}
		return nil
	case now.Major > was.Major && t.MaxMajorSkip != nil && now.Major-was.Major-1 > *t.MaxMajorSkip:
		return invalid("skips %s: was %s; allowed: at most %d skipped, up to %s.x", skippedMajors(was.Major, now.Major), wasRaw, *t.MaxMajorSkip, addSaturating(was.Major, *t.MaxMajorSkip+1))
	case t.Check == v1alpha1.MaxMajorSkip:
		return nil
	case now.Major > was.Major && t.MaxMajorSkip != nil:
		// Into a new major version, its minor versions below the new one
		// are skipped.
		if now.Minor > t.MaxMinorSkip {
			return invalid("skips %s: was %s; allowed: at most %d skipped, up to %d.%d.x", minorsFrom(now.Major, 0, now.Minor), wasRaw, t.MaxMinorSkip, now.Major, t.MaxMinorSkip)
		}
		return nil
	case now.Major < was.Major && t.MaxMajorSkip != nil:
		return nil // going down is NoDowngrade's business
	}
	highest := fmt.Sprintf("%d.%s.x", was.Major, addSaturating(was.Minor, t.MaxMinorSkip+1))
	if now.Major != was.Major {
		return invalid("may not change the major version: was %s; allowed: %d.x up to %s", wasRaw, was.Major, highest)
	}
	if now.Minor > was.Minor && now.Minor-was.Minor-1 > t.MaxMinorSkip {
		return invalid("skips %s: was %s; allowed: at most %d skipped, up to %s", minorsFrom(was.Major, was.Minor+1, now.Minor-was.Minor-1), wasRaw, t.MaxMinorSkip, highest)
	}
	return nil
}

// judgeBuild compares the builds of two equal versions (build: Ordered).
// An old build that is not ordered numbers protects nothing; a new one, or
// none after an old one, cannot be shown not to go down.
func (t *Transition) judgeBuild(wasRaw, wasBuild, nowBuild string, invalid func(string, ...any) field.ErrorList) field.ErrorList {
	was, ok := parseBuild(wasBuild)
	if !ok {
		return nil
	}
	switch now, ok := parseBuild(nowBuild); {
	case nowBuild == "":
		return invalid("has no build, which build: Ordered compares; was %s; allowed: %s or later", wasRaw, wasRaw)
	case !ok:
		return invalid("has build %s, which is not numbers separated by dots, as build: Ordered compares; was %s", nowBuild, wasRaw)
	case now.compare(was) < 0:
		return invalid("may not be downgraded: was %s; allowed: %s or later (build: Ordered)", wasRaw, wasRaw)
	}
	return nil
}

// oldVersion is the old value's version as written, false when it has
// none to protect.
func (t *Transition) oldVersion(v any, tag *ImageTag) (string, bool) {
	if tag == nil {
		s, _, ok := scalarString(v)
		return s, ok
	}
	image, ok := v.(string)
	if !ok {
		return "", false
	}
	ref := parseImage(image)
	if ref.err != nil || ref.tag == "" {
		return "", false
	}
	return t.tagVersion(ref.tag, tag)
}

// tagVersion is the version an image tag holds. With build: Ordered and
// no pattern, the whole tag is the version and its build: the build is
// what follows the "-".
func (t *Transition) tagVersion(ref string, tag *ImageTag) (string, bool) {
	if t.BuildOrdered && tag.Pattern == nil {
		return ref, true
	}
	return tagVersion(ref, tag.Pattern)
}

// newVersion is the new value's version as written, or the finding that
// says why it has none.
func (t *Transition) newVersion(cur side, wasRaw string, tag *ImageTag) (string, field.ErrorList) {
	if tag == nil {
		s, _, ok := scalarString(cur.value)
		if !ok {
			return "", field.ErrorList{field.TypeInvalid(cur.path, cur.value, fmt.Sprintf("must be a version, which %s compares; was %s", t.Check, wasRaw))}
		}
		return s, nil
	}
	image, ok := cur.value.(string)
	if !ok {
		return "", field.ErrorList{field.TypeInvalid(cur.path, cur.value, fmt.Sprintf("must be an image reference, whose tag's version %s compares; was %s", t.Check, wasRaw))}
	}
	ref := parseImage(image)
	switch {
	case ref.err != nil:
		return "", field.ErrorList{field.Invalid(cur.path, image, "is not a valid image reference: "+ref.err.Error())}
	case ref.tag == "" && ref.hasDigest:
		return "", field.ErrorList{field.Invalid(cur.path, image, fmt.Sprintf("is pinned by digest only, so %s cannot compare its version with %s; use name:tag@digest", t.Check, wasRaw))}
	case ref.tag == "":
		return "", field.ErrorList{field.Invalid(cur.path, image, fmt.Sprintf("has no tag, so it is latest, which is no version that %s can compare with %s", t.Check, wasRaw))}
	}
	// Without a pattern a tag always has a version: the grammar starts a
	// tag with a letter, digit or "_", never a "-".
	version, ok := t.tagVersion(ref.tag, tag)
	if !ok && tag.Pattern != nil {
		return "", field.ErrorList{field.Invalid(cur.path, image, fmt.Sprintf("image tag %s does not match tagPattern %s, so %s cannot compare its version with %s", ref.tag, tag.Pattern.Raw, t.Check, wasRaw))}
	}
	return version, nil
}

// parseVersion parses a version; in an image tag "_" stands for the "+"
// of build metadata, which tags cannot hold.
func parseVersion(s string, fromTag bool) (SemanticVersion, error) {
	if fromTag {
		s = strings.Replace(s, "_", "+", 1)
	}
	return ParseSemanticVersion(s)
}

// skippedMajors describes the major versions strictly between from and
// to: "1 major version (7)"; a long run is only counted.
func skippedMajors(from, to uint64) string {
	n := to - from - 1
	switch {
	case n == 1:
		return fmt.Sprintf("1 major version (%d)", from+1)
	case n > 5:
		return fmt.Sprintf("%d major versions (%d to %d)", n, from+1, to-1)
	}
	names := make([]string, 0, n)
	for m := from + 1; m < to; m++ {
		names = append(names, strconv.FormatUint(m, 10))
	}
	return fmt.Sprintf("%d major versions (%s)", n, strings.Join(names, ", "))
}

// minorsFrom describes n minor versions of major from first on: "2 minor
// versions (8.1, 8.2)"; a long run is only counted.
func minorsFrom(major, first, n uint64) string {
	if n == 1 {
		return fmt.Sprintf("1 minor version (%d.%d)", major, first)
	}
	if n > 5 {
		return fmt.Sprintf("%d minor versions (%d.%d to %d.%d)", n, major, first, major, first+n-1)
	}
	names := make([]string, 0, n)
	for m := first; m < first+n; m++ {
		names = append(names, fmt.Sprintf("%d.%d", major, m))
	}
	return fmt.Sprintf("%d minor versions (%s)", n, strings.Join(names, ", "))
}

// addSaturating prints a+b, which may exceed a uint64 for absurd versions.
func addSaturating(a, b uint64) string {
	return new(big.Int).Add(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b)).String()
}

// judgeRemoval reports each map key and list item of the old value that
// the new one lacks, at its old path: it has no new one.
func (t *Transition) judgeRemoval(gvk runtimeschema.GroupVersionKind, old, cur side, list int) field.ErrorList {
	var errs field.ErrorList
	switch was := old.value.(type) {
	case map[string]any:
		now, _ := cur.value.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(was)) {
			if was[k] != nil && now[k] == nil {
				errs = append(errs, field.Forbidden(old.path.Key(k), fmt.Sprintf("key %q was removed; NoRemoval keeps every key of %s", k, old.path)))
			}
		}
	case []any:
		now, _ := cur.value.([]any)
		removed := map[int]string{}
		// Scalar items are values of a set: one is removed when the new
		// list lacks it anywhere, so reordering removes nothing.
		for i, item := range was {
			if isScalar(item) && !slices.ContainsFunc(now, func(v any) bool { return jsonEqual(v, item) }) {
				removed[i] = "value " + showValue(item)
			}
		}
		keys := t.ListKeys(gvk, list)
		keyless := map[int]bool{}
		for _, m := range matchItems(was, now, keys, t.Lists[list].ByIndex) {
			switch {
			case m.old < 0 || m.cur >= 0 || isScalar(was[m.old]):
			case m.keyless:
				keyless[m.old] = true
			case m.key != "":
				removed[m.old] = "item with " + m.key
			default:
				removed[m.old] = fmt.Sprintf("item %d", m.old)
			}
		}
		for _, i := range slices.Sorted(maps.Keys(keyless)) {
			removed[i] = ""
		}
		for _, i := range slices.Sorted(maps.Keys(removed)) {
			if keyless[i] {
				errs = append(errs, field.Forbidden(old.path.Index(i), fmt.Sprintf("item %d has no %s, which identifies the items of %s, so NoRemoval cannot tell whether it was removed; give the items their keys, or set the transition's keys or matchBy: Index", i, strings.Join(keys, ", "), old.path)))
				continue
			}
			errs = append(errs, field.Forbidden(old.path.Index(i), fmt.Sprintf("%s was removed; NoRemoval keeps every item of %s", removed[i], old.path)))
		}
	default:
		if !cur.found {
			errs = append(errs, field.Forbidden(old.path, fmt.Sprintf("was %s; NoRemoval does not allow removing it", showValue(was))))
		}
	}
	return errs
}

// amount reads a number or quantity as an exact rational, and as written.
func amount(v any) (*big.Rat, string, bool) {
	switch v := v.(type) {
	case string:
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, "", false
		}
		return quantityRat(q), v, true
	case int64, int, float64:
		r, ok := numberRat(v)
		return r, showValue(v), ok
	}
	return nil, "", false
}

// numberRat is a JSON number as an exact rational. A float64 is read as
// the shortest decimal that round-trips it, which is what the object
// said: 0.1 is 1/10 (as "100m" is), not the binary float nearest to it.
// Integers beyond int64 arrive as float64 from the decoder: they are exact
// only as far as the float is.
func numberRat(v any) (*big.Rat, bool) {
	switch v := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(v), true
	case int:
		return new(big.Rat).SetInt64(int64(v)), true
	case float64:
		return new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64)) // NaN and ±Inf fail: no JSON number
	}
	return nil, false
}

func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// jsonEqual compares JSON values, numbers by value whatever their Go type.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, jsonEqual)
	case int64, int, float64:
		x, okA := numberRat(a)
		y, okB := numberRat(b)
		return okA && okB && x.Cmp(y) == 0
	default:
		return a == b
	}
}

// showValue prints a value for a message: strings quoted, numbers as
// written, objects and lists as (shortened) JSON.
func showValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	const max = 120 // a message is one line, not a dump of the object
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// badValue is what a field error shows as the value: scalars as they are,
// objects and lists not at all (the message describes them).
func badValue(v any) any {
	if isScalar(v) {
		return v
	}
	return field.OmitValueType{}
}
