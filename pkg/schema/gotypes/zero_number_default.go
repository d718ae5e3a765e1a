package gotypes

import (
	"fmt"
	"go/types"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// zeroNumberDefault is zero-value-default for a number without an enum.
// Whether 0 is a value anyone means (no connections, no delay) or only the
// degenerate end of a range (a UID of root, a zero timeout) is the API's
// to say, not the types': it is a warning, and the hint names the question.
var zeroNumberDefault = &Check{
	Name:     "zero-number-default",
	Doc:      "A non-pointer number with omitempty or omitzero, a non-zero default and no enum: whatever writes through the Go type turns 0 into the default. A defect where 0 means something (no connections, no delay).",
	Severity: Warning,
	Type:     field.ErrorTypeInvalid,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			k, def, ok := defaultReplacesZero(s)
			if !ok || k == types.String || zeroEnumerated(s, k) {
				continue
			}
			reportDefaultReplacesZero(p, s, k, def,
				fmt.Sprintf("if 0 means something here, make it a pointer (%s) so that 0 is sent; if it never does, give it a minimum above 0", pointerTo(s.Field.Type)))
		}
	},
}
