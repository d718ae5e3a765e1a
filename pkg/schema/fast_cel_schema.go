package schema

import (
	"sync"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiserver/pkg/cel/common"
)

// celSchema is the schema CEL values of the fast CEL check are built with:
// upstream's adapter, model.Structural, with the accessors that build new
// adapters on every call (Properties builds a map of every property on
// each field access) answered from adapters built once, on first use. All
// other accessors are upstream's. Safe for concurrent use.
type celSchema struct {
	*model.Structural

	once                 sync.Once
	items                common.Schema
	properties           map[string]common.Schema
	additionalProperties common.SchemaOrBool

	withTypeAndObjectMetaOnce sync.Once
	withTypeAndObjectMeta     common.Schema
}

var _ common.Schema = (*celSchema)(nil)

func newCELSchema(s *structuralschema.Structural) *celSchema {
	return &celSchema{Structural: &model.Structural{Structural: s}}
}

// children builds the adapters of s's children, each once. Like
// upstream's, properties are nil when s has none (an empty map when s
// declares an empty one), and so are items and additionalProperties.
func (s *celSchema) children() {
	s.once.Do(func() {
		st := s.Structural.Structural
		if st.Items != nil {
			s.items = newCELSchema(st.Items)
		}
		if st.Properties != nil {
			s.properties = make(map[string]common.Schema, len(st.Properties))
			for name, prop := range st.Properties {
				s.properties[name] = newCELSchema(&prop)
			}
		}
		if st.AdditionalProperties != nil {
			or := &celSchemaOrBool{allows: st.AdditionalProperties.Bool}
			if st.AdditionalProperties.Structural != nil {
				or.schema = newCELSchema(st.AdditionalProperties.Structural)
			}
			s.additionalProperties = or
		}
	})
}

func (s *celSchema) Items() common.Schema {
	s.children()
	return s.items
}

func (s *celSchema) Properties() map[string]common.Schema {
	s.children()
	return s.properties
}

func (s *celSchema) AdditionalProperties() common.SchemaOrBool {
	s.children()
	return s.additionalProperties
}

// WithTypeAndObjectMeta is upstream's, built once: s itself when it
// already declares what upstream adds.
func (s *celSchema) WithTypeAndObjectMeta() common.Schema {
	s.withTypeAndObjectMetaOnce.Do(func() {
		if with := model.WithTypeAndObjectMeta(s.Structural.Structural); with == s.Structural.Structural {
			s.withTypeAndObjectMeta = s
		} else {
			s.withTypeAndObjectMeta = newCELSchema(with)
		}
	})
	return s.withTypeAndObjectMeta
}

// celSchemaOrBool is additionalProperties as upstream's
// model.StructuralOrBool answers it, its schema adapted once.
type celSchemaOrBool struct {
	allows bool
	schema common.Schema
}

func (b *celSchemaOrBool) Schema() common.Schema { return b.schema }
func (b *celSchemaOrBool) Allows() bool          { return b.allows }
