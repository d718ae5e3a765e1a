package gotypes

import (
	"go/types"
	"slices"
	"strconv"
)

// This file holds what the zero-value and required-field checks share: when
// a zero value disappears on the wire, whether the schema (or, without a
// CRD, the markers controller-gen would read) accepts it, and which fields
// are required.

// omittedScalar tells whether site is a non-pointer boolean, number or
// string whose zero value omitempty or omitzero leaves out. Pointers are
// fine: nil is what they leave out, and a zero value is still sent.
func omittedScalar(site *Site) (types.BasicKind, bool) {
	if site.Kind != FieldSite || site.Implicit || site.Foreign || site.Field.Pointer || !site.Field.Tag.OmitsZero() {
		return types.Invalid, false
	}
	if site.Parent != nil && site.Schema == nil {
		return types.Invalid, false // pruned or unvalidated: reported as such
	}
	k := basicKind(site.Field.Type)
	if k == types.Invalid || k == types.UntypedNil {
		return k, false
	}
	// A known type or marshaler is not a plain scalar (its zero may be
	// written as something else entirely).
	if site.Shape == nil || site.Shape.Wire == WireOpaque || site.Shape.Format == "text" {
		return k, false
	}
	return k, true
}

func zeroLiteral(k types.BasicKind) string {
	switch k {
	case types.Bool:
		return "false"
	case types.String:
		return `""`
	}
	return "0"
}

// nonZeroDefault returns the default the schema (or a +kubebuilder:default
// or +default marker, without a CRD) gives the field, when it is not the
// zero value: the server then replaces an omitted zero by it.
func nonZeroDefault(site *Site) (string, bool) {
	def, isZero, ok := fieldDefault(site)
	return def, ok && !isZero
}

// fieldDefault returns the default the schema (or a +kubebuilder:default or
// +default marker, without a CRD) gives a scalar field, as a JSON literal,
// and whether it is the zero value.
func fieldDefault(site *Site) (literal string, isZero, ok bool) {
	if site.Schema != nil {
		switch v := site.Schema.Default.Object.(type) {
		case bool:
			return strconv.FormatBool(v), !v, true
		case string:
			return strconv.Quote(v), v == "", true
		case int64:
			return strconv.FormatInt(v, 10), v == 0, true
		case float64:
			return strconv.FormatFloat(v, 'g', -1, 64), v == 0, true
		}
		return "", false, false
	}
	if site.Parent != nil {
		return "", false, false // the schema has no default: markers are stale if they say otherwise
	}
	for _, m := range []Markers{site.Field.Markers, site.Field.TypeMarkers} {
		for _, name := range defaultMarkers {
			if v, found := m.Value(name); found {
				if u, err := strconv.Unquote(v); err == nil {
					v = strconv.Quote(u)
				} else if basicKind(site.Field.Type) == types.String {
					v = strconv.Quote(v) // controller-gen reads it as a string
				}
				switch v {
				case "", "0", "false", `""`, "0.0":
					return v, true, true
				}
				return v, false, true
			}
		}
	}
	return "", false, false
}

// zeroIsValid tells whether the zero value of a scalar is a value a user may
// mean: the field's schema accepts it (see zeroRejected), and, for a string,
// an enum lists "" explicitly — an empty string normally means "unset", and
// sending it or not makes no difference.
func zeroIsValid(site *Site, k types.BasicKind) bool {
	if zeroRejected(site, k) {
		return false
	}
	if k != types.String {
		return true
	}
	for _, s := range zeroSchemas(site, k) {
		if s.ValueValidation != nil && len(s.ValueValidation.Enum) > 0 {
			return true
		}
	}
	return false
}

// zeroRejected tells whether the field's own schema rejects its zero value
// (an enum without it, a minimum above it, a minLength or pattern it fails,
// a CEL rule it breaks): then it is not a value anyone can mean, and
// dropping it on the wire loses nothing. The verdict is the API server's:
// the zero is validated by the same OpenAPI and CEL validators the server
// runs on a custom resource, against the field's structural schema, or
// without a CRD against the schema controller-gen would generate from the
// field's and its type's validation markers.
func zeroRejected(site *Site, k types.BasicKind) bool {
	if site.zeroRejected == nil {
		rejected := false
		for _, s := range zeroSchemas(site, k) {
			if len(validateValue(s, zeroValue(k))) > 0 {
				rejected = true
				break
			}
		}
		site.zeroRejected = &rejected
	}
	return *site.zeroRejected
}

// zeroValue is a scalar's zero as the server decodes it from JSON.
func zeroValue(k types.BasicKind) any {
	switch k {
	case types.Bool:
		return false
	case types.String:
		return ""
	}
	return int64(0)
}

// zeroSchemas returns the schemas a scalar field's value must pass: the
// field's schema in the CRD; without one, the schemas of the field's and of
// its type's validation markers (controller-gen requires both).
func zeroSchemas(site *Site, k types.BasicKind) []*Structural {
	if site.Schema != nil {
		return []*Structural{site.Schema}
	}
	if site.Parent != nil {
		return nil
	}
	var out []*Structural
	for _, m := range []Markers{site.Field.Markers, site.Field.TypeMarkers} {
		if s := markerSchema(m, k); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// isRequired tells whether the field at a FieldSite is required: by the
// parent schema when there is one, else by controller-gen's rule (explicit
// markers first, then "required unless omitempty, omitzero or inline", or
// optional by default under a package-level +kubebuilder:validation:Optional).
func isRequired(site *Site) bool {
	if site.Parent != nil {
		return site.Parent.ValueValidation != nil && slices.Contains(site.Parent.ValueValidation.Required, site.Field.JSONName)
	}
	return requiredByMarkers(site.Field, nil)
}

func requiredByMarkers(f *Field, pkgMarkers Markers) bool {
	if _, ok := f.Markers.anyOf(optionalMarkers); ok {
		return false
	}
	if _, ok := f.Markers.anyOf(requiredMarkers); ok {
		return true
	}
	if pkgMarkers.Has("kubebuilder:validation:Optional") {
		return false
	}
	return !f.Tag.OmitsZero() && !f.Tag.Has("inline")
}

// requiredProperties lists the properties an object at an ObjectSite must
// have: the schema's required list, or the markers' without a schema.
func requiredProperties(site *Site) []string {
	if site.Schema != nil {
		if site.Schema.ValueValidation == nil {
			return nil
		}
		return site.Schema.ValueValidation.Required
	}
	var pkgMarkers Markers
	if site.Shape.Decl != nil {
		pkgMarkers = site.Shape.Decl.pkgMarkers
	}
	var out []string
	for _, f := range site.Shape.Fields {
		if requiredByMarkers(f, pkgMarkers) {
			out = append(out, f.JSONName)
		}
	}
	return out
}
