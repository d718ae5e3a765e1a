package gotypes

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/schema"
)

// Options configure Lint. The zero value runs every check that needs no CRD,
// at its default severity.
type Options struct {
	// CRDs are the CustomResourceDefinitions to compare the Go types with;
	// they must be valid (see schema.CRDsFromDocuments). Without any, only
	// the checks that read the Go types alone run. Default: none.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// Severity overrides a check's default severity by check name; Off
	// disables the check. Default: no overrides.
	Severity map[string]Severity
}

// Validate reports unknown check names and severities.
func (o Options) Validate() field.ErrorList {
	var errs field.ErrorList
	names := make([]string, 0, len(o.Severity))
	for name := range o.Severity {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := field.NewPath("severity").Key(name)
		if CheckByName(name) == nil {
			errs = append(errs, field.NotFound(path, name))
		}
		switch o.Severity[name] {
		case Error, Warning, Info, Off:
		default:
			errs = append(errs, field.NotSupported(path, o.Severity[name], []Severity{Error, Warning, Info, Off}))
		}
	}
	return errs
}

// Lint runs the checks on kinds and returns the findings ordered by file,
// line, kind and path. A finding is reported once however many kinds share
// the Go type (Issuer and ClusterIssuer share IssuerSpec), under the first
// kind; findings about a Go declaration alone (a tag, an ignored field) are
// reported once per declaration, at the first path that reaches it.
func Lint(kinds []*Kind, opts Options) ([]Finding, error) {
	if errs := opts.Validate(); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	var findings []Finding
	seen := map[string]bool{}
	for _, k := range kinds {
		// A kind without a CRD (or without its version) is still walked, so
		// the Go-only checks run; missing-crd reports the gap.
		crd, hasVersion := crdFor(opts.CRDs, k.GroupVersionKind)
		var root *Structural
		if crd != nil && hasVersion {
			var err error
			if root, err = schema.StructuralSchema(crd, k.GroupVersionKind.Version); err != nil {
				return nil, err
			}
		}
		// One walk per kind, shared by every check: the checks only read.
		sites := walk(k, root)
		for _, c := range registry {
			severity := c.Severity
			if s, ok := opts.Severity[c.Name]; ok {
				severity = s
			}
			if severity == Off || (c.NeedsCRD && len(opts.CRDs) == 0) {
				continue
			}
			pass := &Pass{Kind: k, Sites: sites, Schema: root, check: c}
			if crd != nil {
				pass.CRDName = crd.Name
				pass.StatusSubresource = hasVersion && statusSubresource(crd, k.GroupVersionKind.Version)
			}
			pass.report = func(f Finding) {
				f.Severity, f.Type = severity, c.Type
				key := fmt.Sprint(f.Check, f.Pos, f.Path, f.Message)
				if c.PerDeclaration {
					// A tag is wrong once, however many paths reach it.
					key = fmt.Sprint(f.Check, f.Pos)
				}
				if !seen[key] {
					seen[key] = true
					findings = append(findings, f)
				}
			}
			c.Run(pass)
		}
	}
	slices.SortStableFunc(findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Pos.Filename, b.Pos.Filename), cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Kind.String(), b.Kind.String()), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Check, b.Check))
	})
	return findings, nil
}
