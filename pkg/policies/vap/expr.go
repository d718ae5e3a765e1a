package vap

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// This file builds the CEL that compiled rules share: literals, the walk of
// a rule path through an object, and values printed as field errors print
// them. Every generated expression is total on well-formed JSON: it tests
// types before it uses a value, because an expression that errors makes
// the API server apply failurePolicy instead of the rule's finding.

// celString is s as a CEL string literal.
func celString(s string) string { return strconv.Quote(s) }

// celStrings is a CEL list of string literals.
func celStrings(list []string) string {
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = celString(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// celIdentifier is name as a CEL identifier in snake case: "safe-updates"
// is safe_updates, "spec.storageClassName" spec_storage_class_name. A name
// that would start with a digit gets a leading "_".
func celIdentifier(name string) string {
	var b strings.Builder
	lower := false // the last letter written was lower case or a digit
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			if lower {
				b.WriteByte('_')
			}
			b.WriteRune(r - 'A' + 'a')
			lower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			lower = true
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			lower = false
		}
	}
	out := strings.TrimSuffix(b.String(), "_")
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "_" + out
	}
	return out
}

// celNames hands out fresh identifiers for cel.bind and comprehensions, so
// nested walks never shadow each other.
type celNames struct{ n int }

func (c *celNames) next(prefix string) string {
	c.n++
	return fmt.Sprintf("%s%d", prefix, c.n)
}

// celPath is a field path under construction: literal text and CEL string
// expressions (list indexes), rendered as one concatenation.
type celPath struct {
	parts []celPathPart
	// pointer makes it a JSON pointer, "/spec/containers/0", where a
	// field path is "spec.containers[0]".
	pointer bool
}

type celPathPart struct {
	text   string
	isExpr bool
}

func (p celPath) isRoot() bool { return len(p.parts) == 0 }

func (p celPath) with(parts ...celPathPart) celPath {
	return celPath{parts: append(p.parts[:len(p.parts):len(p.parts)], parts...), pointer: p.pointer}
}

// child appends a field: "name" at the root, ".name" below it.
func (p celPath) child(name string) celPath {
	switch {
	case p.pointer:
		return p.with(celPathPart{text: "/" + rules.EscapePointerToken(name)})
	case p.isRoot():
		return p.with(celPathPart{text: name})
	}
	return p.with(celPathPart{text: "." + name})
}

func (p celPath) key(k string) celPath {
	if p.pointer {
		return p.child(k)
	}
	return p.with(celPathPart{text: "[" + k + "]"})
}

func (p celPath) index(i int) celPath {
	if p.pointer {
		return p.with(celPathPart{text: "/" + strconv.Itoa(i)})
	}
	return p.with(celPathPart{text: "[" + strconv.Itoa(i) + "]"})
}

// steps appends a Path's steps: its fields, indexes and keys.
func (p celPath) steps(steps []rules.PathStep) celPath {
	for _, s := range steps {
		switch {
		case s.Field != "":
			p = p.child(s.Field)
		case s.Index >= 0:
			p = p.index(s.Index)
		default:
			p = p.key(s.Key)
		}
	}
	return p
}

// indexVar appends "[<i>]" for the CEL int variable i.
func (p celPath) indexVar(i string) celPath {
	index := celPathPart{text: "string(" + i + ")", isExpr: true}
	if p.pointer {
		return p.with(celPathPart{text: "/"}, index)
	}
	return p.with(celPathPart{text: "["}, index, celPathPart{text: "]"})
}

// expr renders the path as a CEL string expression; the root is "<nil>",
// as a nil field.Path prints, or "" as a JSON pointer.
func (p celPath) expr() string {
	switch {
	case p.isRoot() && p.pointer:
		return celString("")
	case p.isRoot():
		return celString("<nil>")
	}
	var out []string
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, celString(lit.String()))
			lit.Reset()
		}
	}
	for _, part := range p.parts {
		if part.isExpr {
			flush()
			out = append(out, part.text)
			continue
		}
		lit.WriteString(part.text)
	}
	flush()
	return strings.Join(out, " + ")
}

// static is the path when it holds no list variable.
func (p celPath) static() (string, bool) {
	var b strings.Builder
	for _, part := range p.parts {
		if part.isExpr {
			return "", false
		}
		b.WriteString(part.text)
	}
	if p.isRoot() {
		return "<nil>", true
	}
	return b.String(), true
}

// celLeaf builds the findings (a CEL list(string)) for one place a path
// reaches. value is a CEL expression of the value there, "null" when found
// is false.
type celLeaf func(path celPath, value string, found bool) string

// celVisit is rules.ObjectPath.visit in CEL: an expression of type list(string)
// that joins leaf's findings for every place p reaches in root (a CEL
// expression). As in visit, the last step is visited when it is missing but
// its parent exists, and null counts as missing.
//
// The walk first lists the places, then applies leaf once to the list:
// a leaf written into every branch of the walk would multiply the
// expression's size by the number of paths, and the API server limits an
// expression to 100,000 characters.
func celVisit(names *celNames, p rules.ObjectPath, root string, leaf celLeaf) string {
	return celApply(names, celPlaces(names, p, root), leaf)
}

// celApply applies leaf to every place of a list that celPlaces built.
func celApply(names *celNames, places string, leaf celLeaf) string {
	pl := names.next("pl")
	path := celPath{parts: []celPathPart{{text: pl + ".p", isExpr: true}}}
	return fmt.Sprintf("%s.map(%s, %s.f ? %s : %s).flatten()", places, pl, pl,
		leaf(path, pl+".v", true), leaf(path, "null", false))
}

// celPlaces lists the places p reaches in root as maps {p: path, v:
// value, f: found}.
func celPlaces(names *celNames, p rules.ObjectPath, root string) string {
	return celPlacesKeeping(names, p, root, nil)
}

// celRulePlaces lists the places of a rule's own paths (placesOf lists
// one path's) and those of its preset. The preset's paths depend on the
// kind, which a binding does not fix, so they are chosen at admission
// time; each kind's places are a helper of their own, so that each
// expression stays small enough to type-check quickly.
func celRulePlaces(names *celNames, paths []rules.ObjectPath, preset v1alpha1.ResourcesPreset, placesOf func(rules.ObjectPath) string) ([]string, []admissionregistrationv1.Variable) {
	var places []string
	var helpers []admissionregistrationv1.Variable
	for _, p := range paths {
		places = append(places, placesOf(p))
	}
	if preset != v1alpha1.Workloads {
		return places, nil
	}
	kinds := slices.Sorted(maps.Keys(rules.WorkloadResourcePaths))
	byKind := "[]"
	for i := len(kinds) - 1; i >= 0; i-- {
		var perKind []string
		for _, p := range rules.WorkloadResourcePaths[kinds[i]] {
			perKind = append(perKind, placesOf(p))
		}
		helper := names.next("places")
		helpers = append(helpers, admissionregistrationv1.Variable{Name: helper, Expression: strings.Join(perKind, " + ")})
		byKind = fmt.Sprintf("(request.kind.kind == %s ? variables.%s : %s)", celString(kinds[i]), helper, byKind)
	}
	return append(places, byKind), helpers
}

// celPointerPlaces is celPlaces with each place's JSON pointer as p.
func celPointerPlaces(names *celNames, p rules.ObjectPath, root string) string {
	return celPlacesAt(names, p, root, celPath{pointer: true}, nil)
}

// celPlacesKeeping is celPlaces without the list items keep rejects.
func celPlacesKeeping(names *celNames, p rules.ObjectPath, root string, keep *celKeep) string {
	return celPlacesAt(names, p, root, celPath{}, keep)
}

func celPlacesAt(names *celNames, p rules.ObjectPath, root string, path celPath, keep *celKeep) string {
	return celWalk(names, p, 0, root, path, keep, func(path celPath, value string, found bool) string {
		return fmt.Sprintf("[{'p': dyn(%s), 'v': dyn(%s), 'f': dyn(%t)}]", path.expr(), value, found)
	})
}

// celKeep selects the items of one "[*]" of a walk: the step at, and
// keep, a CEL boolean of an item, true for an item to walk into.
type celKeep struct {
	at   int
	keep func(item string) string
}

func celWalk(names *celNames, p rules.ObjectPath, i int, value string, path celPath, keep *celKeep, leaf celLeaf) string {
	if i == len(p.Steps) {
		return leaf(path, value, true)
	}
	step, last := p.Steps[i], i == len(p.Steps)-1
	switch {
	case step.Field != "" || (!step.Each && step.Index < 0):
		name, next := step.Key, path.key(step.Key)
		if step.Field != "" {
			name, next = step.Field, path.child(step.Field)
		}
		missing := "[]"
		if last {
			missing = leaf(next, "null", false)
		}
		child := names.next("v")
		return fmt.Sprintf("(type(%[1]s) == map ? (%[2]s in %[1]s && %[1]s[%[2]s] != null ? cel.bind(%[3]s, %[1]s[%[2]s], %[4]s) : %[5]s) : [])",
			value, celString(name), child, celWalk(names, p, i+1, child, next, keep, leaf), missing)
	case step.Each:
		idx, item := names.next("i"), names.next("v")
		rest := celWalk(names, p, i+1, item, path.indexVar(idx), keep, leaf)
		if keep != nil && keep.at == i {
			rest = fmt.Sprintf("(%s ? %s : [])", keep.keep(item), rest)
		}
		return fmt.Sprintf("(type(%[1]s) == list ? %[1]s.transformList(%[2]s, %[3]s, %[4]s).flatten() : [])",
			value, idx, item, rest)
	default:
		next := path.index(step.Index)
		missing := "[]"
		if last {
			missing = leaf(next, "null", false)
		}
		child := names.next("v")
		return fmt.Sprintf("(type(%[1]s) == list ? (size(%[1]s) > %[2]d ? cel.bind(%[3]s, %[1]s[%[2]d], %[4]s) : %[5]s) : [])",
			value, step.Index, child, celWalk(names, p, i+1, child, next, keep, leaf), missing)
	}
}

// celItemName is the name of a list item, "" when it has none.
func celItemName(item string) string {
	return fmt.Sprintf(`(type(%[1]s) == map && "name" in %[1]s && type(%[1]s["name"]) == string ? %[1]s["name"] : "")`, item)
}

// celIsNumber tells whether v is a JSON number: the API server decodes
// one as an int or a double, never as a uint.
func celIsNumber(v string) string {
	return fmt.Sprintf("(type(%[1]s) == int || type(%[1]s) == double)", v)
}

// celIsScalar tells whether v is neither an object nor a list.
func celIsScalar(v string) string {
	return fmt.Sprintf("(type(%[1]s) != map && type(%[1]s) != list)", v)
}

// celScalarString is scalarString: a string as it is (string() of a
// string is the string), a number as printed.
func celScalarString(v string) string {
	return fmt.Sprintf("string(%s)", v)
}

// celShowValue is showValue for scalars: strings quoted, numbers and
// booleans as written. Objects and lists print as "{…}" and "[…]": CEL has
// no JSON encoder, so their content is left out.
func celShowValue(v string) string {
	return fmt.Sprintf(`(type(%[1]s) == string ? strings.quote(%[1]s) : type(%[1]s) == map ? "{…}" : type(%[1]s) == list ? "[…]" : type(%[1]s) == null_type ? "null" : string(%[1]s))`, v)
}

// celInvalidBody is the ErrorBody of an "Invalid value" error whose bad
// value is v: scalars are shown, objects and lists left out (as badValue
// and OmitValueType leave them out). detail is a CEL string expression.
func celInvalidBody(v, detail string) string {
	return fmt.Sprintf(`"Invalid value: " + (%[1]s ? %[2]s + ": " : "") + %[3]s`, celIsScalar(v), celShowValue(v), detail)
}

// celTypeInvalidBody is the ErrorBody of an error that shows its bad
// value whatever it is (field.TypeInvalid with the value itself): objects
// and lists print as "{…}" and "[…]" where the engine prints JSON.
func celTypeInvalidBody(v, detail string) string {
	return fmt.Sprintf(`"Invalid value: " + %s + ": " + %s`, celShowValue(v), detail)
}

// celFinding is one finding as the engine prints it in one line: "path:
// body".
func celFinding(path celPath, body string) string {
	return path.expr() + ` + ": " + ` + body
}

// replaceIdent replaces the identifier name in s with with, outside string
// literals.
func replaceIdent(s, name, with string) string {
	isIdent := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(s) {
				b.WriteByte(c)
				i++
				c = s[i]
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case strings.HasPrefix(s[i:], name) && (i == 0 || !isIdent(s[i-1]) && s[i-1] != '.') &&
			(i+len(name) == len(s) || !isIdent(s[i+len(name)])):
			b.WriteString(with)
			i += len(name) - 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
