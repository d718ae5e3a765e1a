package gotypes

import (
	"fmt"
	"go/types"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// zeroValueOmitted: omitempty on a non-pointer scalar whose zero value is
// valid. "Set to 0/false" and "not set" become the same JSON, so a client
// cannot ask for the zero: server-side apply from the Go type gives up
// ownership instead of setting it, and a merge patch cannot send it. A
// default equal to the zero (+kubebuilder:default=false) declares that zero
// and unset mean the same: the server stores the zero whenever it is left
// out, and nothing is lost.
//
// Every reader still sees the zero, so nothing is lost on a read: this is
// information for server-side apply users, and it leaves out strings (""
// is "unset" for every reader) and status, which only the controller
// writes.
var zeroValueOmitted = &Check{
	Name:     "zero-value-omitted",
	Doc:      "A non-pointer boolean or number outside status, with omitempty or omitzero, whose zero value is valid and not the default: the zero and \"unset\" are the same JSON, so server-side apply gives the field up instead of setting it. Declare the zero as the default if the two mean the same.",
	Severity: Info,
	Type:     field.ErrorTypeInvalid,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			k, ok := omittedScalar(s)
			if !ok || k == types.String || under(s.Path, "status") || isRequired(s) || !zeroIsValid(s, k) {
				continue
			}
			if _, _, ok := fieldDefault(s); ok {
				// Another default: zero-value-default or
				// zero-number-default reports it. The zero itself as
				// default says that zero and unset are one: the server
				// stores the zero either way.
				continue
			}
			p.Report(s, fmt.Sprintf("make it a pointer (%s) if %s differs from unset; if they mean the same, make %s the default", pointerTo(s.Field.Type), zeroLiteral(k), zeroLiteral(k)),
				"%s drops its valid zero value %s on the wire (%s): a client cannot tell the server to set it, and server-side apply gives the field up instead", s.GoName, zeroLiteral(k), omitOption(s.Field.Tag))
		}
	},
}
