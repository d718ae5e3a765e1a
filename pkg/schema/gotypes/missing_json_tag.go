package gotypes

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// missingJSONTag: encoding/json writes an untagged field under its Go name,
// while controller-gen refuses to generate a schema for it, so the CRD and
// the wire can only agree by accident.
var missingJSONTag = &Check{
	Name:           "missing-json-tag",
	Doc:            "A field encoding/json writes has no json tag: it goes on the wire under its Go name, and controller-gen refuses to generate its schema.",
	Severity:       Error,
	Type:           field.ErrorTypeInvalid,
	PerDeclaration: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if s.Kind != FieldSite || s.Implicit || s.Foreign || s.Field.Tag.Present {
				continue
			}
			p.Report(s, fmt.Sprintf("add `json:%q`", lowerCamel(s.Field.GoName)),
				"%s has no json tag: encoding/json writes it as %q and controller-gen refuses to generate its schema", s.GoName, s.Field.JSONName)
		}
	},
}
