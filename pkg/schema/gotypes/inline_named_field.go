package gotypes

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// inlineNamedField: ",inline" is not an encoding/json option. It inlines
// nothing on the wire unless the field is an embedded struct with an empty
// name, yet controller-gen inlines the field's schema whenever it is there,
// so the CRD describes fields one level higher than the JSON has them.
var inlineNamedField = &Check{
	Name:           "inline-named-field",
	Doc:            `",inline" on a field encoding/json writes under a name (a named field, or an embedded one with a tag name): controller-gen inlines its schema, encoding/json nests it.`,
	Severity:       Error,
	Type:           field.ErrorTypeInvalid,
	PerDeclaration: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if s.Kind != FieldSite || s.Implicit || s.Foreign || !s.Field.Tag.Has("inline") {
				continue
			}
			p.Report(s, "embed the type with `json:\",inline\"` to inline it, or drop \",inline\" to nest it",
				"%s is tagged `json:%q`, but encoding/json ignores \",inline\" and writes it as an object under %q, while controller-gen inlines its fields", s.GoName, s.Field.Tag.Raw, s.Field.JSONName)
		}
	},
}
