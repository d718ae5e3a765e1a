package schema

import (
	"slices"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ListMapKeys returns the x-kubernetes-list-map-keys of the list at path
// in the schema of gvk, or nil when gvk has no schema, path leads nowhere
// in it, or the list is not a list-map. It compiles gvk's validator on
// first use, like Validator.
func (r *Registry) ListMapKeys(gvk schema.GroupVersionKind, path ...string) []string {
	v, err := r.Validator(gvk)
	if err != nil {
		return nil
	}
	return v.ListMapKeys(path...)
}

// ListMapKeys returns the x-kubernetes-list-map-keys of the list at path.
// path names object fields and map keys; list items are stepped through
// on their own, so the volumes of spec.users[*].volumes are at
// ("spec", "users", "volumes"). A name is a field where the schema has
// that property, else a key of a map (additionalProperties).
func (v *Validator) ListMapKeys(path ...string) []string {
	s := v.schemaAt(path)
	if s == nil || !isListMap(s) {
		return nil
	}
	return slices.Clone(s.XListMapKeys)
}

// schemaAt is the schema at path, as ListMapKeys takes it; nil when the
// schema has no such place.
func (v *Validator) schemaAt(path []string) *structuralschema.Structural {
	s := v.structural
	for _, name := range path {
		for s.Items != nil {
			s = s.Items
		}
		if p, ok := s.Properties[name]; ok {
			s = &p
			continue
		}
		if s.AdditionalProperties == nil || s.AdditionalProperties.Structural == nil {
			return nil
		}
		s = s.AdditionalProperties.Structural
	}
	return s
}

func isListMap(s *structuralschema.Structural) bool {
	return s.Type == "array" && s.XListType != nil && *s.XListType == "map"
}

// ItemHasField tells whether the items of the list at path (as for
// ListMapKeys) declare the field at fieldPath, a path of object fields
// within an item. known is false when the schema does not say: gvk has no
// schema, or the list or an object on the way preserves unknown fields.
func (r *Registry) ItemHasField(gvk schema.GroupVersionKind, path, fieldPath []string) (has, known bool) {
	v, err := r.Validator(gvk)
	if err != nil {
		return false, false
	}
	s := v.schemaAt(path)
	if s == nil || s.Type != "array" || s.Items == nil || s.Items.Type != "object" {
		return false, false // no list of objects here: not this check's to say
	}
	s = s.Items
	for _, name := range fieldPath {
		if p, ok := s.Properties[name]; ok {
			s = &p
			continue
		}
		return false, !s.XPreserveUnknownFields && !s.XEmbeddedResource
	}
	return true, true
}
