package gotypes

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// typeMismatch: the Go type writes a JSON type the schema rejects (an int
// where the schema wants a string, a slice where it wants an object, a
// Quantity's string where it wants a number), so every object the
// controller writes with that field set is rejected, or loses its content.
var typeMismatch = &Check{
	Name:     "type-mismatch",
	Doc:      "The JSON type a Go field is written as is one the schema rejects (or prunes the content of): int vs string, slice vs object, Quantity vs number, a map vs an object with fixed properties, free-form JSON vs a schema that does not preserve unknown fields.",
	Severity: Error,
	Type:     field.ErrorTypeTypeInvalid,
	NeedsCRD: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if (s.Kind != FieldSite && s.Kind != ItemSite) || s.Implicit || s.Schema == nil {
				continue
			}
			if ok, want := wireMatches(s.Shape, s.Schema); !ok {
				p.Report(s, "change the Go type or the schema so that both describe the same JSON",
					"%s is written as %s (Go %s), but the schema %s", s.GoName, describeWire(s.Shape), s.Shape.GoType, want)
			}
		}
	},
}

// wireMatches tells whether every value of shape is accepted and kept whole
// by schema s, and if not, what the schema wants instead.
func wireMatches(sh *Shape, s *Structural) (bool, string) {
	free := s.Type == "" && s.XPreserveUnknownFields // any JSON at all
	switch sh.Wire {
	case WireOpaque, WireUnsupported:
		return true, "" // reported by their own checks
	case WireAny:
		// Free-form JSON survives only where unknown fields are preserved;
		// elsewhere every field the schema does not name is pruned.
		if s.XPreserveUnknownFields {
			return true, ""
		}
		if s.Type == "object" {
			return false, "declares an object that is not x-kubernetes-preserve-unknown-fields: the API server prunes every field it does not declare"
		}
	case WireIntOrString:
		if s.XIntOrString || free {
			return true, ""
		}
	case WireObject:
		if s.Type == "object" || free {
			return true, ""
		}
	case WireMap:
		// A map's keys are data, not names: only additionalProperties (or
		// preserved unknown fields) keep keys the schema cannot list.
		if free || (s.Type == "object" && (s.AdditionalProperties != nil || s.XPreserveUnknownFields)) {
			return true, ""
		}
		if s.Type == "object" {
			return false, "declares an object with fixed properties and no additionalProperties: the API server prunes every other key"
		}
	case WireArray:
		if s.Type == "array" || free {
			return true, ""
		}
	case WireString:
		// Quantities, times, []byte and ",string" numbers land here: all
		// are strings on the wire, whatever their Go type.
		if s.Type == "string" || s.XIntOrString || free {
			return true, ""
		}
	case WireInteger:
		// JSON integers are valid numbers.
		if s.Type == "integer" || s.Type == "number" || s.XIntOrString || free {
			return true, ""
		}
	case WireNumber:
		// A float may carry a fraction, which an integer schema rejects.
		if s.Type == "number" || free {
			return true, ""
		}
	case WireBoolean:
		if s.Type == "boolean" || free {
			return true, ""
		}
	}
	return false, "wants " + describeSchema(s)
}

func describeWire(sh *Shape) string {
	switch sh.Wire {
	case WireObject, WireMap:
		return "an object"
	case WireArray:
		return "an array"
	case WireIntOrString:
		return "an integer or a string"
	case WireAny:
		return "free-form JSON"
	case WireInteger:
		return "an integer"
	}
	return "a " + string(sh.Wire)
}

func describeSchema(s *Structural) string {
	switch {
	case s.XIntOrString:
		return "an integer or a string (x-kubernetes-int-or-string)"
	case s.Type == "":
		return "any value"
	case s.Type == "object" || s.Type == "array" || s.Type == "integer":
		return "an " + s.Type
	}
	return "a " + s.Type
}
