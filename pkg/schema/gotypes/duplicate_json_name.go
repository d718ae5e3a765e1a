package gotypes

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// duplicateJSONName: when two fields at the same embedding depth share a
// JSON name and neither wins by a tag, encoding/json writes neither and says
// nothing.
var duplicateJSONName = &Check{
	Name:           "duplicate-json-name",
	Doc:            "Two fields at the same embedding depth are written under the same JSON name: encoding/json silently writes neither.",
	Severity:       Error,
	Type:           field.ErrorTypeDuplicate,
	PerDeclaration: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if s.Kind != IgnoredSite || s.Foreign || s.Field.Ignored != ignoredConflict {
				continue
			}
			p.Report(s, "rename one of the fields' json names",
				"%s is written as %q, as is another field at the same embedding depth: encoding/json writes neither", s.GoName, s.Field.JSONName)
		}
	},
}
