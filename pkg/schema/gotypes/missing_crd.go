package gotypes

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// missingCRD: with --crds given, a Go kind that none of them defines (or
// whose version none serves a schema for) cannot be compared; passing
// silently would hide a forgotten CRD file.
var missingCRD = &Check{
	Name:     "missing-crd",
	Doc:      "A Go root type that no given CRD defines, at its group, kind and version: nothing can be compared.",
	Severity: Error,
	Type:     field.ErrorTypeNotFound,
	NeedsCRD: true,
	Run: func(p *Pass) {
		if p.Schema != nil || len(p.Sites) == 0 {
			return
		}
		gvk := p.Kind.GroupVersionKind
		if p.CRDName != "" {
			p.Report(p.Sites[0], "add the version to the CRD, or check +versionName",
				"CustomResourceDefinition %q has no version %s for %s", p.CRDName, gvk.Version, p.Kind.Shape.GoType)
			return
		}
		p.Report(p.Sites[0], "pass the CRD with --crds, or check +groupName",
			"no CustomResourceDefinition defines kind %s in group %q for %s", gvk.Kind, gvk.Group, p.Kind.Shape.GoType)
	},
}
