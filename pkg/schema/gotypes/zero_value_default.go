package gotypes

import (
	"fmt"
	"go/types"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// zeroValueDefault: omitempty drops a zero scalar, and the schema's default
// takes its place. `replicas: 0` becomes `replicas: 3`; `enabled: false`
// becomes `enabled: true`. The zero value can never be stored. A zero the
// schema rejects anyway (`mode: ""` under an enum without "") is no loss.
var zeroValueDefault = &Check{
	Name:     "zero-value-default",
	Doc:      "A non-pointer scalar with omitempty or omitzero whose default is not its zero value, and whose zero the schema accepts: the zero is dropped on the wire and the server stores the default instead, so it can never be set.",
	Severity: Error,
	Type:     field.ErrorTypeInvalid,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			k, ok := omittedScalar(s)
			if !ok {
				continue
			}
			def, ok := nonZeroDefault(s)
			if !ok || zeroRejected(s, k) {
				continue // no default replaces it, or a zero nobody can store anyway
			}
			p.Report(s, fmt.Sprintf("make it a pointer (%s) so that %s is sent", pointerTo(s.Field.Type), zeroLiteral(k)),
				"%s drops %s on the wire (%s) and the default %s replaces it: %s can never be stored", s.GoName, zeroLiteral(k), omitOption(s.Field.Tag), def, zeroLiteral(k))
		}
	},
}

func pointerTo(t types.Type) string { return "*" + types.TypeString(t, qualifier) }

func omitOption(t Tag) string {
	if t.Has("omitempty") {
		return "omitempty"
	}
	return "omitzero"
}
