package gotypes

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// requiredOmitempty: a required scalar whose zero value is valid, but which
// omitempty drops: a client that sets the valid zero gets "Required value".
var requiredOmitempty = &Check{
	Name:     "required-omitempty",
	Doc:      "A required non-pointer scalar with omitempty or omitzero whose zero value is valid: setting the zero sends nothing, and the server answers \"Required value\".",
	Severity: Warning,
	Type:     field.ErrorTypeRequired,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			k, ok := omittedScalar(s)
			if !ok || !isRequired(s) || !zeroIsValid(s, k) {
				continue
			}
			p.Report(s, fmt.Sprintf("drop %s, or make it a pointer (%s) with %s", omitOption(s.Field.Tag), pointerTo(s.Field.Type), omitOption(s.Field.Tag)),
				"%s is required and %s is a valid value, but %s drops it on the wire: setting it gets \"Required value\"", s.GoName, zeroLiteral(k), omitOption(s.Field.Tag))
		}
	},
}
