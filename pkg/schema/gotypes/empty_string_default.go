package gotypes

import (
	"fmt"
	"go/types"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// emptyStringDefault is zero-value-default for a string without an enum.
// An empty string almost always means "unset", and then the default is
// exactly what is meant: it is worth knowing, not fixing.
var emptyStringDefault = &Check{
	Name:     "empty-string-default",
	Doc:      `A non-pointer string with omitempty or omitzero, a non-empty default and no enum: whatever writes through the Go type turns "" into the default, which is what "" usually means.`,
	Severity: Info,
	Type:     field.ErrorTypeInvalid,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			k, def, ok := defaultReplacesZero(s)
			if !ok || k != types.String || zeroEnumerated(s, k) {
				continue
			}
			reportDefaultReplacesZero(p, s, k, def,
				fmt.Sprintf(`if "" should mean something other than the default, make it a pointer (%s); else nothing is lost`, pointerTo(s.Field.Type)))
		}
	},
}
