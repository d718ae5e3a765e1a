package gotypes

import (
	"go/types"
	"slices"
	"strconv"
	"strings"
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
	switch {
	case k == types.Bool:
		return "false"
	case k == types.String:
		return `""`
	}
	return "0"
}

// nonZeroDefault returns the default the schema (or a +kubebuilder:default
// or +default marker, without a CRD) gives the field, when it is not the
// zero value: the server then replaces an omitted zero by it.
func nonZeroDefault(site *Site) (string, bool) {
	if site.Schema != nil {
		v := site.Schema.Default.Object
		switch v := v.(type) {
		case nil:
			return "", false
		case bool:
			return strconv.FormatBool(v), v
		case string:
			return strconv.Quote(v), v != ""
		case int64:
			return strconv.FormatInt(v, 10), v != 0
		case float64:
			return strconv.FormatFloat(v, 'g', -1, 64), v != 0
		}
		return "", false
	}
	if site.Parent != nil {
		return "", false // the schema has no default: markers are stale if they say otherwise
	}
	for _, m := range []Markers{site.Field.Markers, site.Field.TypeMarkers} {
		for _, name := range defaultMarkers {
			if v, ok := m.Value(name); ok {
				if u, err := strconv.Unquote(v); err == nil {
					v = strconv.Quote(u)
				}
				switch v {
				case "", "0", "false", `""`, "0.0":
					return "", false
				}
				return v, true
			}
		}
	}
	return "", false
}

// zeroIsValid tells whether the zero value of a scalar passes the field's
// validation, making it a value a user may mean. Booleans: always. Numbers:
// unless a minimum above zero (or an enum without 0) excludes it. Strings:
// only when an enum lists "" explicitly — an empty string normally means
// "unset", and sending it or not makes no difference.
func zeroIsValid(site *Site, k types.BasicKind) bool {
	enum, hasEnum := enumValues(site)
	switch {
	case k == types.Bool:
		return !hasEnum || slices.Contains(enum, "false")
	case k == types.String:
		return hasEnum && slices.Contains(enum, "")
	}
	// Numbers: an enum decides alone; otherwise the minimum does.
	if hasEnum && !slices.Contains(enum, "0") {
		return false
	}
	min, exclusive, ok := minimum(site)
	return !ok || min < 0 || (min == 0 && !exclusive)
}

// enumValues returns the allowed values, each as its JSON literal would be
// written without quotes for strings.
func enumValues(site *Site) ([]string, bool) {
	if site.Schema != nil {
		if site.Schema.ValueValidation == nil || len(site.Schema.ValueValidation.Enum) == 0 {
			return nil, false
		}
		var out []string
		for _, e := range site.Schema.ValueValidation.Enum {
			switch v := e.Object.(type) {
			case string:
				out = append(out, v)
			case bool:
				out = append(out, strconv.FormatBool(v))
			case int64:
				out = append(out, strconv.FormatInt(v, 10))
			case float64:
				out = append(out, strconv.FormatFloat(v, 'g', -1, 64))
			}
		}
		return out, true
	}
	if site.Parent != nil {
		return nil, false
	}
	for _, m := range []Markers{site.Field.Markers, site.Field.TypeMarkers} {
		if v, ok := m.Value("kubebuilder:validation:Enum"); ok {
			var out []string
			for _, e := range strings.Split(v, ";") {
				e = strings.TrimSpace(e)
				if u, err := strconv.Unquote(e); err == nil {
					e = u
				}
				out = append(out, e)
			}
			return out, true
		}
	}
	return nil, false
}

func minimum(site *Site) (min float64, exclusive, ok bool) {
	if site.Schema != nil {
		vv := site.Schema.ValueValidation
		if vv == nil || vv.Minimum == nil {
			return 0, false, false
		}
		return *vv.Minimum, vv.ExclusiveMinimum, true
	}
	if site.Parent != nil {
		return 0, false, false
	}
	for _, m := range []Markers{site.Field.Markers, site.Field.TypeMarkers} {
		if v, found := m.Value("kubebuilder:validation:Minimum"); found {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, false, false
			}
			ex, _ := m.Value("kubebuilder:validation:ExclusiveMinimum")
			return f, ex == "true", true
		}
	}
	return 0, false, false
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
