package gotypes

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// jsonTagName: tag names that do not mean what they look like. An empty
// name on a named field makes encoding/json use the Go name while
// controller-gen inlines the field's schema; "-," names a field "-" instead
// of skipping it; a name with characters encoding/json rejects is ignored.
var jsonTagName = &Check{
	Name:           "json-tag-name",
	Doc:            `A json tag name encoding/json does not use as written: empty (controller-gen inlines the field, encoding/json writes it under its Go name), "-," (a field named "-", not a skipped one), or invalid characters (ignored for the Go name).`,
	Severity:       Error,
	Type:           field.ErrorTypeInvalid,
	PerDeclaration: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if s.Kind != FieldSite || s.Implicit || s.Foreign || !s.Field.Tag.Present || s.Field.Tag.Has("inline") {
				continue
			}
			tag, want := s.Field.Tag, lowerCamel(s.Field.GoName)
			switch {
			case tag.Name == "":
				p.Report(s, fmt.Sprintf("name it: `json:%q`", want+tagOptions(tag)),
					"%s has an empty json name (`json:%q`): encoding/json writes it as %q, while controller-gen inlines its schema", s.GoName, tag.Raw, s.Field.JSONName)
			case tag.Name == "-":
				p.Report(s, "write `json:\"-\"` to skip the field, or give it a real name",
					"%s is tagged `json:%q`, which names it \"-\" rather than skipping it", s.GoName, tag.Raw)
			case !validTagName(tag.Name):
				p.Report(s, fmt.Sprintf("use letters, digits and punctuation other than quotes and backslashes: `json:%q`", want+tagOptions(tag)),
					"%s has the json name %q, which encoding/json ignores: it writes the field as %q", s.GoName, tag.Name, s.Field.JSONName)
			}
		}
	},
}

func tagOptions(t Tag) string {
	out := ""
	for _, o := range t.Options {
		out += "," + o
	}
	return out
}
