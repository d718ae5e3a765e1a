package app

import (
	"sort"
	"strconv"

	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema/gotypes"
)

// lintEachKind runs the checks kind by kind. gotypes.Lint reports a finding
// that several kinds share once, under the first kind; the report names
// every kind a finding reaches, so that a mistake in a type shared by ten
// kinds is one finding that says so rather than one that hides nine.
func lintEachKind(kinds []*gotypes.Kind, opts gotypes.Options) ([]gotypes.Finding, error) {
	var findings []gotypes.Finding
	for _, k := range kinds {
		found, err := gotypes.Lint([]*gotypes.Kind{k}, opts)
		if err != nil {
			return nil, err
		}
		findings = append(findings, found...)
	}
	return findings, nil
}

// lintResults turns findings into one report result per Go source line and
// kind, so that every output format, SARIF included, points at the Go
// file:line of the field. A result has one kind, so a field that several
// kinds reach is in the result of each, in JSON, SARIF and JUnit; the text
// reports it once and names the kinds. Each kind also gets a result at its
// type declaration, so a clean kind is listed as checked.
func lintResults(kinds []*gotypes.Kind, findings []gotypes.Finding) []report.Result {
	type key struct {
		file string
		line int
		kind string
	}
	byKey := map[key]*report.Result{}
	var order []key
	result := func(k key, apiVersion, kind, name string) *report.Result {
		if r, ok := byKey[k]; ok {
			return r
		}
		byKey[k] = &report.Result{Source: displayFile(k.file), NotStream: true, Line: k.line, APIVersion: apiVersion, Kind: kind, Name: name}
		order = append(order, k)
		return byKey[k]
	}
	for _, k := range kinds {
		gvk := k.GroupVersionKind
		result(key{k.Pos.Filename, k.Pos.Line, gvk.String()}, gvk.GroupVersion().String(), gvk.Kind, "")
	}
	for _, f := range findings {
		r := result(key{f.Pos.Filename, f.Pos.Line, f.Kind.String()}, f.Kind.GroupVersion().String(), f.Kind.Kind, f.GoName)
		r.Violations = append(r.Violations, report.Finding{
			Field:       f.Path,
			Type:        string(f.Type),
			Message:     lintMessage(f),
			Policy:      "gotypes",
			Rule:        f.Check,
			Enforcement: enforcement(f.Severity),
		})
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		return a.kind < b.kind
	})
	results := make([]report.Result, len(order))
	for i, k := range order {
		results[i] = *byKey[k]
	}
	return results
}

// lintMessage is the finding's message, where a third-party type is
// declared when the finding sits at the field that reaches it, and the fix.
func lintMessage(f gotypes.Finding) string {
	msg := f.Message
	if f.DeclaredAt.IsValid() {
		msg += " (declared at " + moduleFile(f.DeclaredAt.Filename) + ":" + strconv.Itoa(f.DeclaredAt.Line) + ")"
	}
	return msg + "; fix: " + f.Hint
}
