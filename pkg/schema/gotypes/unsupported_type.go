package gotypes

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// unsupportedType: channels, functions, complex numbers and maps with
// non-string keys make json.Marshal fail for the whole object.
var unsupportedType = &Check{
	Name:           "unsupported-type",
	Doc:            "A field of a type json.Marshal cannot encode (chan, func, complex, a map with keys that are neither strings, integers nor TextMarshalers): every object with it fails to serialise.",
	Severity:       Error,
	Type:           field.ErrorTypeTypeInvalid,
	PerDeclaration: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if (s.Kind != FieldSite && s.Kind != ItemSite) || s.Foreign || s.Shape.Wire != WireUnsupported {
				continue
			}
			p.Report(s, "use a type encoding/json can write",
				"%s has type %s, which json.Marshal cannot encode", s.GoName, s.Shape.GoType)
		}
	},
}
