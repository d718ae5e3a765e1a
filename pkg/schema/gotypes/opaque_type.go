package gotypes

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// opaqueType: a custom MarshalJSON can write anything, so its JSON form is
// reported as unknown rather than guessed from the Go type's fields.
var opaqueType = &Check{
	Name:           "opaque-type",
	Doc:            "A field whose type has a custom MarshalJSON: its JSON form is not derived statically, so the comparison with the schema stops there.",
	Severity:       Info,
	Type:           field.ErrorTypeInvalid,
	PerDeclaration: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if (s.Kind != FieldSite && s.Kind != ItemSite) || s.Implicit || s.Foreign || s.Shape.Wire != WireOpaque {
				continue
			}
			p.Report(s, "prove it at run time with gotypes.RoundTrip",
				"%s has type %s, whose custom MarshalJSON decides its JSON form: not compared with the schema", s.GoName, s.Shape.GoType)
		}
	},
}
