package gotypes

import (
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// schemaOnlyField: a property the schema declares and no Go field reads.
// Users can set it and the server stores it, but the controller ignores it.
var schemaOnlyField = &Check{
	Name:     "schema-only-field",
	Doc:      "A property the schema declares that no Go field is written as: users may set it, the server stores it, and the controller never reads it.",
	Severity: Warning,
	Type:     field.ErrorTypeNotFound,
	NeedsCRD: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if s.Kind != ObjectSite || s.Schema == nil {
				continue
			}
			fields := map[string]bool{}
			for _, f := range s.Shape.Fields {
				fields[f.JSONName] = true
			}
			resource := s.Path == "" || s.Schema.XEmbeddedResource
			var names []string
			for name := range s.Schema.Properties {
				if !fields[name] && !(resource && implicitRootFields[name]) {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			for _, name := range names {
				p.ReportPath(s, join(s.Path, name), "add the field to the Go type, or regenerate the CRD",
					"the schema declares %s, but %s has no field written as %q: the controller never reads it", join(s.Path, name), s.GoName, name)
			}
		}
	},
}
