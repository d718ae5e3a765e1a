package gotypes

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ignoredField: json:"-" and unexported fields of an API type never reach
// the API server. A controller that stores state there loses it on the next
// read, and controller-gen skips them without a word. Both are spelled out
// on purpose (a cache, a computed value), so this is information: the
// mistake of a field left out by accident is missing-json-tag's.
var ignoredField = &Check{
	Name:           "ignored-field",
	Doc:            `A field of an API type that encoding/json never writes or reads (json:"-", or unexported): whatever the controller keeps there is lost on the next read from the API server.`,
	Severity:       Info,
	Type:           field.ErrorTypeForbidden,
	PerDeclaration: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if s.Kind != IgnoredSite || s.Foreign {
				continue
			}
			switch s.Field.Ignored {
			case ignoredDash:
				p.Report(s, "give it a json name if the API should carry it; keep controller state outside API types",
					"%s is tagged `json:\"-\"`: it never reaches the API server, so a value kept there is lost on the next read", s.GoName)
			case ignoredUnexported:
				p.Report(s, "export it with a json tag if the API should carry it; keep controller state outside API types",
					"%s is unexported: it never reaches the API server, so a value kept there is lost on the next read", s.GoName)
			}
		}
	},
}
