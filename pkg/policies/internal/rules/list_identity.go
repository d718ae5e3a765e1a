package rules

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// listIdentity says which list of a transition's path it is, and how its
// items pair between the old and the new object.
type listIdentity struct {
	// SchemaPath is where the list is in a kind's schema: the fields and
	// map keys leading to it, as ListMapKeys takes it.
	SchemaPath []string
	// Keys are the configured Keys, field paths within an item ("name",
	// "metadata.name"); nil means the CRD's list-map Keys, else "name".
	Keys []string
	// ByIndex pairs items by position (matchBy: Index).
	ByIndex bool
}

// pathLists are the lists a transition's path goes through: one per
// "[*]", and for NoRemoval the list it checks. Each is given as the
// schema path of the list (fields and map keys, as ListMapKeys takes it)
// and as text for messages.
func pathLists(p ObjectPath, check v1alpha1.TransitionCheck) (schemaPaths [][]string, texts []string) {
	var schemaPath []string
	add := func(steps []PathStep) {
		schemaPaths = append(schemaPaths, slices.Clone(schemaPath))
		texts = append(texts, StepsText(steps, true))
	}
	for i, s := range p.Steps {
		switch {
		case s.Each:
			add(p.Steps[:i])
		case s.Field != "":
			schemaPath = append(schemaPath, s.Field)
		case s.Index < 0:
			schemaPath = append(schemaPath, s.Key)
		}
	}
	if check == v1alpha1.NoRemoval {
		add(p.Steps)
	}
	return schemaPaths, texts
}

// compileListIdentities reads keys, matchBy and listKeys for the lists of
// the path, and checks them against the schemas of the kinds the policy
// matches: a key no item has, or a list whose items nothing identifies,
// is an error when the policy loads rather than a wrong pairing later.
func compileListIdentities(cfg *v1alpha1.FieldTransition, p ObjectPath, at *field.Path, env *compileEnv) ([]listIdentity, field.ErrorList) {
	schemaPaths, texts := pathLists(p, cfg.Check)
	var errs field.ErrorList
	type configured struct {
		keys    []string
		matchBy v1alpha1.ListMatch
		at      *field.Path // where keys and matchBy are
	}
	perList := make([]configured, len(schemaPaths))
	shorthand := len(cfg.Keys) > 0 || cfg.MatchBy != ""
	switch {
	case len(cfg.ListKeys) > 0 && shorthand:
		errs = append(errs, field.Forbidden(at.Child("keys"), "set keys and matchBy in listKeys, one entry per list"))
	case len(cfg.ListKeys) > 0 && len(cfg.ListKeys) != len(schemaPaths):
		errs = append(errs, field.Invalid(at.Child("listKeys"), len(cfg.ListKeys), fmt.Sprintf("has %d entries; path %s has %d lists (%s)", len(cfg.ListKeys), cfg.Path, len(schemaPaths), strings.Join(texts, ", "))))
	case len(cfg.ListKeys) > 0:
		for i, lk := range cfg.ListKeys {
			perList[i] = configured{lk.Keys, lk.MatchBy, at.Child("listKeys").Index(i)}
		}
	case shorthand && len(schemaPaths) == 0:
		errs = append(errs, field.Forbidden(at.Child("keys"), "keys match list items: they may only be set for a path with [*] or for check NoRemoval"))
	case shorthand && len(schemaPaths) > 1:
		errs = append(errs, field.Forbidden(at.Child("keys"), fmt.Sprintf("keys identify the items of one list, and path %s has %d (%s): set listKeys, one entry per list: %s%s", cfg.Path, len(schemaPaths), strings.Join(texts, ", "), listKeysForm(cfg.Keys, schemaPaths, env), listPairingChange)))
	case shorthand:
		perList[0] = configured{cfg.Keys, cfg.MatchBy, at}
	}

	lists := make([]listIdentity, len(schemaPaths))
	// Errors against the schema are kept apart: one list's does not stop
	// the next list's check, as a configuration error does.
	var schemaErrs field.ErrorList
	for i, c := range perList {
		lists[i] = listIdentity{SchemaPath: schemaPaths[i], Keys: c.keys, ByIndex: c.matchBy == v1alpha1.MatchByIndex}
		if c.at == nil {
			c.at = at
		}
		if c.matchBy != "" && c.matchBy != v1alpha1.MatchByKey && c.matchBy != v1alpha1.MatchByIndex {
			errs = append(errs, field.NotSupported(c.at.Child("matchBy"), c.matchBy, []v1alpha1.ListMatch{v1alpha1.MatchByKey, v1alpha1.MatchByIndex}))
		}
		if lists[i].ByIndex && len(c.keys) > 0 {
			errs = append(errs, field.Forbidden(c.at.Child("keys"), "items matched by index have no keys"))
		}
		for j, k := range c.keys {
			if k == "" || strings.HasPrefix(k, ".") || strings.HasSuffix(k, ".") || strings.Contains(k, "..") {
				errs = append(errs, field.Invalid(c.at.Child("keys").Index(j), k, `must be a field path within an item, like "name" or "metadata.name"`))
			}
		}
		if len(errs) > 0 || lists[i].ByIndex || env == nil || env.schemas == nil {
			continue
		}
		for _, gvk := range env.kinds {
			if len(c.keys) > 0 {
				for j, k := range c.keys {
					if has, known := env.schemas.ItemHasField(gvk, schemaPaths[i], strings.Split(k, ".")); known && !has {
						schemaErrs = append(schemaErrs, field.Invalid(c.at.Child("keys").Index(j), k, fmt.Sprintf("the items of %s in %s have no field %s", texts[i], gvk.Kind, k)))
					}
				}
				continue
			}
			if len(env.schemas.ListMapKeys(gvk, schemaPaths[i]...)) > 0 {
				continue
			}
			if has, known := env.schemas.ItemHasField(gvk, schemaPaths[i], DefaultListKeys); known && !has {
				schemaErrs = append(schemaErrs, field.Invalid(at.Child("path"), cfg.Path, fmt.Sprintf("nothing identifies the items of %s in %s: they have no list-map keys and no name field; %s%s", texts[i], gvk.Kind, identifyHint(cfg, i, texts, schemaPaths, env), pairingChange(cfg))))
			}
		}
	}
	return lists, append(errs, schemaErrs...)
}

// identifyHint says how to identify the items of the path's i-th list in
// the form that loads: keys alone serve a path with one list, and are
// refused for more, where each list has its entry in listKeys.
func identifyHint(cfg *v1alpha1.FieldTransition, i int, texts []string, schemaPaths [][]string, env *compileEnv) string {
	switch {
	case len(cfg.ListKeys) > 0:
		return fmt.Sprintf("give listKeys[%d] keys (like metadata.name), or matchBy: Index", i)
	case len(texts) > 1:
		return fmt.Sprintf("set listKeys, one entry per list of the path (%s): %s", strings.Join(texts, ", "), listKeysForm(nil, schemaPaths, env))
	}
	return "set keys (like metadata.name), or matchBy: Index"
}

// listPairingChange tells users of the release in which keys applied to
// every list of a path, and items without them paired by position, what
// changed. Loading such a policy as it was would pair the wrong items,
// so it is an error, never a warning.
const listPairingChange = "; before this release keys applied to every list of a path and items without them paired by position, which let a reordered list hide a change (CHANGELOG.md)"

// pairingChange is listPairingChange for a transition written without
// listKeys, as the previous release's were.
func pairingChange(cfg *v1alpha1.FieldTransition) string {
	if len(cfg.ListKeys) > 0 {
		return ""
	}
	return listPairingChange
}

// listKeysForm writes the listKeys that identify the items of each list
// as a policy writes it: the given keys where the items have them, else
// the CRD's list-map keys, name, or metadata.name, else a placeholder:
// pairing by position (matchBy: Index) is the user's choice to make.
// Without CRDs it repeats the given keys for every list, which is what
// they meant when they applied to every list.
func listKeysForm(given []string, schemaPaths [][]string, env *compileEnv) string {
	entries := make([]string, len(schemaPaths))
	placeholder := false
	for i, sp := range schemaPaths {
		keys := given
		if env != nil && env.schemas != nil && len(env.kinds) > 0 {
			keys = schemaKeysFor(given, sp, env)
		}
		if len(keys) == 0 {
			keys, placeholder = []string{"<key>"}, true
		}
		entries[i] = "{keys: [" + strings.Join(keys, ", ") + "]}"
	}
	form := "listKeys: [" + strings.Join(entries, ", ") + "]"
	if placeholder {
		form += ", where <key> is a field that identifies the list's items, or the entry is {matchBy: Index}"
	}
	return form
}

// schemaKeysFor picks the keys that the items of the list at schemaPath
// have in every kind the policy matches, nil for none.
func schemaKeysFor(given []string, schemaPath []string, env *compileEnv) []string {
	has := func(key string) bool {
		for _, gvk := range env.kinds {
			if ok, known := env.schemas.ItemHasField(gvk, schemaPath, strings.Split(key, ".")); known && !ok {
				return false
			}
		}
		return true
	}
	if len(given) > 0 && !slices.ContainsFunc(given, func(k string) bool { return !has(k) }) {
		return given
	}
	if keys := env.schemas.ListMapKeys(env.kinds[0], schemaPath...); len(keys) > 0 {
		return keys
	}
	for _, key := range []string{"name", "metadata.name"} {
		if has(key) {
			return []string{key}
		}
	}
	return nil
}

// keyValue is the value at the dotted field path key within item.
func keyValue(item map[string]any, key string) (any, bool) {
	var v any = item
	for key != "" {
		var name string
		name, key, _ = strings.Cut(key, ".")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
	}
	return v, true
}
