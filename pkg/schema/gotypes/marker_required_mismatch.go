package gotypes

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// markerRequiredMismatch: +optional / +required markers that disagree with
// the schema's required list. Either the CRD is stale or the marker lies;
// both mislead whoever reads the Go type.
var markerRequiredMismatch = &Check{
	Name:     "marker-required-mismatch",
	Doc:      "A +optional or +required marker (kubebuilder or Kubernetes spelling) that disagrees with the schema's required list: the CRD is stale, or the marker is wrong.",
	Severity: Error,
	Type:     field.ErrorTypeRequired,
	NeedsCRD: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if s.Kind != FieldSite || s.Implicit || s.Parent == nil || s.Schema == nil {
				continue
			}
			required := s.Parent.ValueValidation != nil && slices.Contains(s.Parent.ValueValidation.Required, s.Field.JSONName)
			if m, ok := s.Field.Markers.anyOf(optionalMarkers); ok && required {
				p.Report(s, "regenerate the CRD, or mark the field +required",
					"%s is marked +%s, but the schema requires %s: objects without it are rejected", s.GoName, m, s.Field.JSONName)
			}
			if m, ok := s.Field.Markers.anyOf(requiredMarkers); ok && !required {
				p.Report(s, "regenerate the CRD, or mark the field +optional",
					"%s is marked +%s, but the schema does not require %s: objects without it are accepted", s.GoName, m, s.Field.JSONName)
			}
		}
	},
}
