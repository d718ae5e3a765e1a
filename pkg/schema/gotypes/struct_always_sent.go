package gotypes

import (
	"fmt"
	"go/types"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// structAlwaysSent: omitempty never omits a struct value. An optional
// non-pointer struct field is always written, as its zero value, and when
// that zero value lacks a property the struct's schema requires, every
// object that leaves the field unset is rejected.
//
// Two root fields are exempt. An object without a spec is never meant: the
// kubebuilder scaffold's `Spec FooSpec json:"spec,omitempty"` always sends
// one, and its required fields are the user's to fill. And with the status
// subresource, the API server drops status on writes to the main resource,
// so its zero value is never validated there.
var structAlwaysSent = &Check{
	Name:     "struct-always-sent",
	Doc:      "An optional non-pointer struct field with omitempty (which never omits structs): it is always written, and its zero value lacks properties its schema requires, so leaving it unset is rejected.",
	Severity: Error,
	Type:     field.ErrorTypeRequired,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if s.Kind != ObjectSite || s.Field == nil || s.Field.Module != p.Kind.Module || s.Field.Pointer || !s.Field.Tag.Has("omitempty") || s.Field.Tag.Has("omitzero") {
				continue
			}
			if s.Path == "spec" || (s.Path == "status" && p.StatusSubresource) {
				continue
			}
			if _, ok := types.Unalias(s.Field.Type).Underlying().(*types.Struct); !ok {
				continue // an item of a list or map field, not the field's own value
			}
			if s.Shape.Name != nil && knownTypes[typeKey(s.Shape.Name)] != (knownType{}) {
				continue
			}
			missing := missingFromZero(s)
			if len(missing) == 0 {
				continue
			}
			at := *s
			at.Pos, at.GoName = s.Field.Pos, goName(s.Field)
			p.Report(&at, fmt.Sprintf("make it a pointer (%s), or use omitzero", pointerTo(s.Field.Type)),
				"%s is a %s value, which omitempty never omits: unset, it is sent as its zero value without the required %s, and the object is rejected",
				at.GoName, s.Shape.GoType, strings.Join(missing, ", "))
		}
	},
}

// missingFromZero lists the required properties that the struct's zero
// value does not write: fields with omitempty or omitzero, and nil pointers,
// slices, maps and interfaces, whose null the server drops.
func missingFromZero(s *Site) []string {
	written := map[string]bool{}
	for _, f := range s.Shape.Fields {
		if f.Tag.OmitsZero() || f.Shape == nil || zeroIsNull(f) {
			continue
		}
		written[f.JSONName] = true
	}
	var missing []string
	for _, r := range requiredProperties(s) {
		if !written[r] {
			missing = append(missing, r)
		}
	}
	slices.Sort(missing)
	return missing
}

// zeroIsNull tells whether a field's zero value is written as null: nil
// pointers, slices, maps and interfaces, and the known types whose
// MarshalJSON writes null for their zero value (metav1.Time, RawExtension).
func zeroIsNull(f *Field) bool {
	switch types.Unalias(f.Type).Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map, *types.Interface:
		return true
	}
	return f.Shape.Name != nil && knownTypes[typeKey(f.Shape.Name)].zeroNull
}
