package gotypes

import (
	"fmt"
	"go/types"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// zeroValueDefault: omitempty drops a zero scalar, and the schema's default
// takes its place. `enabled: false` becomes `enabled: true`. kubectl can
// still store the zero, but whatever writes the object through the Go type
// (the operator's own updates and defaulting webhook included) turns it back
// into the default. Reported at error where the zero is certainly a value a
// user means: a boolean, or a value the schema's enum lists. A number or a
// string without an enum is zero-number-default's or empty-string-default's.
var zeroValueDefault = &Check{
	Name:     "zero-value-default",
	Doc:      "A non-pointer boolean, or a scalar whose enum lists its zero, with omitempty or omitzero and a default that is not the zero: whatever writes through the Go type turns the zero into the default.",
	Severity: Error,
	Type:     field.ErrorTypeInvalid,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if k, def, ok := defaultReplacesZero(s); ok && zeroEnumerated(s, k) {
				reportDefaultReplacesZero(p, s, k, def, fmt.Sprintf("make it a pointer (%s) so that %s is sent", pointerTo(s.Field.Type), zeroLiteral(k)))
			}
		}
	},
}

// defaultReplacesZero tells whether site is a scalar whose zero the wire
// drops and a non-zero default replaces, and the zero is one the schema
// accepts (a zero it rejects is no loss), returning the default.
func defaultReplacesZero(s *Site) (types.BasicKind, string, bool) {
	k, ok := omittedScalar(s)
	if !ok {
		return k, "", false
	}
	def, ok := nonZeroDefault(s)
	if !ok || zeroRejected(s, k) {
		return k, "", false
	}
	return k, def, true
}

// zeroEnumerated tells whether a scalar's zero is one of a closed set of
// values: a boolean's false, or a value the schema's enum lists.
func zeroEnumerated(s *Site, k types.BasicKind) bool {
	if k == types.Bool {
		return true
	}
	for _, sch := range zeroSchemas(s, k) {
		if sch.ValueValidation != nil && len(sch.ValueValidation.Enum) > 0 {
			return true
		}
	}
	return false
}

func reportDefaultReplacesZero(p *Pass, s *Site, k types.BasicKind, def, hint string) {
	zero := zeroLiteral(k)
	p.Report(s, hint,
		"%s drops %s on the wire (%s), and the default %s takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns %s into %s",
		s.GoName, zero, omitOption(s.Field.Tag), def, zero, def)
}

func pointerTo(t types.Type) string { return "*" + types.TypeString(t, qualifier) }

func omitOption(t Tag) string {
	if t.Has("omitempty") {
		return "omitempty"
	}
	return "omitzero"
}
