package schema

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// walkSchemas are the schemas decode hands to upstream walks that only
// change an object where the schema says so: each is the structural schema
// trimmed to the nodes where its walk can act and the paths to them, nil
// when it can act nowhere (decode then skips the walk).
type walkSchemas struct {
	// defaulting is for structuraldefaulting.Default, which sets a
	// property, an additionalProperties value or an item from the default
	// of its schema and acts nowhere else: in a subtree without a default
	// it at most writes a null over a null (the copy of no default).
	defaulting *structuralschema.Structural
	// coercion is for schemaobjectmeta.CoerceWithOptions (not at a resource
	// root), which reads, rewrites or rejects only the apiVersion, kind and
	// metadata of objects whose schema is an x-kubernetes-embedded-resource.
	coercion *structuralschema.Structural
}

// walkSchemas returns the validator's walk schemas, trimmed once, on first use.
func (v *Validator) walkSchemas() *walkSchemas {
	v.walkSchemasOnce.Do(func() {
		v.walks = walkSchemas{
			defaulting: trimSchema(v.structural, func(s *structuralschema.Structural) bool { return s.Default.Object != nil }),
			coercion:   trimSchema(v.structural, func(s *structuralschema.Structural) bool { return s.XEmbeddedResource }),
		}
	})
	return &v.walks
}

// createWalksSchema is the schema for the strategy that validates creates
// on the fast paths: s trimmed to the nodes where the strategy's
// embedded-resource walk (schemaobjectmeta.Validate, not at a resource
// root) and list-type walk (structurallisttype.ValidateListSetsAndMaps)
// can report an error, nil when neither can report one anywhere. The first
// reports only at an x-kubernetes-embedded-resource, the second only at an
// x-kubernetes-list-type set or map (with its list-map keys); both read
// nothing else of a schema but its properties, additionalProperties and
// items. Of a strategy's create only CEL reads the schema besides them,
// and s must have no rules: PrepareForCreate, the schema validator, scale
// and selectable fields do not read it.
func createWalksSchema(s *structuralschema.Structural) *structuralschema.Structural {
	return trimSchema(s, func(s *structuralschema.Structural) bool {
		return s.XEmbeddedResource || (s.XListType != nil && (*s.XListType == "set" || *s.XListType == "map"))
	})
}

// trimSchema returns a copy of s without the subtrees that hold no node
// acts selects, or nil when s holds none. Each node kept keeps its own
// fields (type, default, nullable, extensions). A walk that follows
// properties, additionalProperties and items, and changes or reports
// nothing in a subtree without such a node, then does on the trimmed schema
// exactly what it does on s. One more thing keeps it exact: where additionalProperties
// are kept, every property stays (a trimmed one empty), so that a walk
// never takes a property's value for an additional one.
func trimSchema(s *structuralschema.Structural, acts func(*structuralschema.Structural) bool) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	trimmed := *s
	trimmed.Items = trimSchema(s.Items, acts)
	trimmed.AdditionalProperties = nil
	if s.AdditionalProperties != nil {
		if additional := trimSchema(s.AdditionalProperties.Structural, acts); additional != nil {
			trimmed.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: additional, Bool: s.AdditionalProperties.Bool}
		}
	}
	trimmed.Properties = nil
	for name, property := range s.Properties {
		kept := trimSchema(&property, acts)
		if kept == nil && trimmed.AdditionalProperties != nil {
			kept = &structuralschema.Structural{}
		}
		if kept != nil {
			if trimmed.Properties == nil {
				trimmed.Properties = map[string]structuralschema.Structural{}
			}
			trimmed.Properties[name] = *kept
		}
	}
	if trimmed.Items == nil && trimmed.AdditionalProperties == nil && trimmed.Properties == nil && !acts(s) {
		return nil
	}
	return &trimmed
}
