package gotypes

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// prunedField: a field the Go type writes and the schema does not declare.
// The API server prunes it on every write, so the controller reads back a
// zero value, and nobody is told.
var prunedField = &Check{
	Name:     "pruned-field",
	Doc:      "A field the Go type writes that the schema does not declare: the API server prunes it on every write and the controller reads back its zero value.",
	Severity: Error,
	Type:     field.ErrorTypeForbidden,
	NeedsCRD: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			switch {
			case s.Kind == FieldSite && !s.Implicit && s.Parent != nil && s.Schema == nil &&
				!s.Parent.XPreserveUnknownFields && declaresFields(s.Parent):
				p.Report(s, "regenerate the CRD, or add the property to its schema",
					"%s is written as %s, but the schema does not declare it: the API server prunes it on every write", s.GoName, s.Path)
			case s.Kind == ObjectSite && s.Field != nil && s.Schema != nil && s.Schema.Type == "object" && !declaresFields(s.Schema) &&
				!s.Schema.XPreserveUnknownFields && hasExplicitFields(s):
				// One finding for the object rather than one per field.
				at := *s
				at.Pos, at.GoName = s.Field.Pos, goName(s.Field)
				p.Report(&at, "declare its properties in the schema, or mark it x-kubernetes-preserve-unknown-fields (or x-kubernetes-embedded-resource)",
					"%s is a %s, but the schema declares an object without properties: the API server prunes every field of it", at.GoName, s.Shape.GoType)
			}
		}
	},
}

// declaresFields tells whether an object schema names any property, or
// accepts any through additionalProperties.
func declaresFields(s *Structural) bool {
	return len(s.Properties) > 0 || s.AdditionalProperties != nil
}

// hasExplicitFields tells whether an object writes fields other than those
// the API server owns on an embedded resource.
func hasExplicitFields(s *Site) bool {
	for _, f := range s.Shape.Fields {
		if !(s.Schema.XEmbeddedResource && implicitRootFields[f.JSONName]) {
			return true
		}
	}
	return false
}
