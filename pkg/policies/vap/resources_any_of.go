package vap

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// anyOfCEL writes a requireAnyOf group of a resources rule in CEL.
type anyOfCEL struct{ *rules.AnyOf }

// celCheck is the group's check: its findings, their boolean form, and
// the helper listing the items of the prefix the places share.
func (g anyOfCEL) celCheck(names *celNames) (findings, passes string, helpers []admissionregistrationv1.Variable) {
	if len(g.Prefix.Steps) == 0 {
		return g.celFindingsAt(names, "object", celPath{}), g.celPassesAt(names, "object", celPath{}), nil
	}
	helper := names.next("prefix")
	helpers = []admissionregistrationv1.Variable{{Name: helper, Expression: celPlaces(names, g.Prefix, "object")}}
	pl := names.next("pl")
	path := celPath{parts: []celPathPart{{text: pl + ".p", isExpr: true}}}
	findings = fmt.Sprintf("variables.%s.map(%s, %s).flatten()", helper, pl, g.celFindingsAt(names, pl+".v", path))
	passes = fmt.Sprintf("variables.%s.all(%s, %s)", helper, pl, g.celPassesAt(names, pl+".v", path))
	return findings, passes, helpers
}

// celFindingsAt is AnyOf.checkAt in CEL, for the prefix item value at
// path.
func (g anyOfCEL) celFindingsAt(names *celNames, value string, path celPath) string {
	var out []string
	for _, key := range []string{"limits", "requests"} {
		list := g.Limits
		if key == "requests" {
			list = g.Requests
		}
		for _, name := range list {
			out = append(out, fmt.Sprintf("(%s ? [] : [%s])", g.celSets(names, value, path, name, key == "requests"),
				celFinding(g.celFindingPath(path, key, name), g.celMessage(path, key, name))))
		}
	}
	return strings.Join(out, " + ")
}

// celPassesAt tells that no resource of the group is missing.
func (g anyOfCEL) celPassesAt(names *celNames, value string, path celPath) string {
	var out []string
	for _, name := range g.Limits {
		out = append(out, g.celSets(names, value, path, name, false))
	}
	for _, name := range g.Requests {
		out = append(out, g.celSets(names, value, path, name, true))
	}
	return "(" + strings.Join(out, " && ") + ")"
}

// celSets is AnyOf.sets in CEL: whether a place below the prefix item
// value sets the resource's limit, or with request its effective request.
func (g anyOfCEL) celSets(names *celNames, value string, path celPath, name string, request bool) string {
	from := len(g.Prefix.Steps)
	var any []string
	for _, pl := range g.Places {
		var keep *celKeep
		if pl.ContainerName != "" {
			keep = &celKeep{at: pl.Path.LastEach(), keep: func(item string) string {
				return celItemName(item) + " == " + celString(pl.ContainerName)
			}}
		}
		sets := func(_ celPath, v string, found bool) string {
			if !found {
				return "[]"
			}
			s := celSetsQuantity(v, "limits", name)
			if request {
				s += " || " + celSetsQuantity(v, "requests", name)
			}
			return "[" + s + "]"
		}
		b := names.next("b")
		any = append(any, fmt.Sprintf("%s.exists(%s, %s)", celWalk(names, pl.Path, from, value, path, keep, sets), b, b))
	}
	return "(" + strings.Join(any, " || ") + ")"
}

// celSetsQuantity is setsQuantity: whether v[key][name] is a valid
// quantity.
func celSetsQuantity(v, key, name string) string {
	q := v + "[" + celString(key) + "][" + celString(name) + "]"
	return fmt.Sprintf("(type(%[1]s) == map && %[2]s in %[1]s && type(%[1]s[%[2]s]) == map && %[3]s in %[1]s[%[2]s] && %[4]s)",
		v, celString(key), celString(name), celIsQuantity(q))
}

// celFindingPath is AnyOf.findingPath below the prefix item at path.
func (g anyOfCEL) celFindingPath(path celPath, key, name string) celPath {
	steps, leaf := g.FindingSteps()
	path = path.steps(steps)
	if leaf {
		path = path.child(key).child(name)
	}
	return path
}

// celMessage is the finding's body, as the engine writes it, with the
// prefix item's path in each place's name.
func (g anyOfCEL) celMessage(path celPath, key, name string) string {
	const marker = "\x00"
	texts := g.PlaceTexts()
	if len(g.Prefix.Steps) > 0 {
		for i := range texts {
			texts[i] = marker + texts[i]
		}
	}
	parts := strings.Split("Required value: "+rules.AnyOfMessage(key, name, rules.JoinOr(texts)), marker)
	out := []string{celString(parts[0])}
	for _, p := range parts[1:] {
		out = append(out, path.expr(), celString(p))
	}
	return strings.Join(out, " + ")
}
