package diff

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// schemaStep is one step down a schema: a property by name, or items or
// additionalProperties (name empty). Sub-schemas under other keywords
// (allOf, not, items as a list, ...) are not stepped into: the walks
// compare them whole.
type schemaStep struct {
	keyword, name string
}

// in is the sub-schema of s the step leads to, nil when s has none there.
func (step schemaStep) in(s *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	switch step.keyword {
	case "properties":
		if child, ok := s.Properties[step.name]; ok {
			return &child
		}
	case "items":
		if s.Items != nil {
			return s.Items.Schema
		}
	case "additionalProperties":
		if s.AdditionalProperties != nil {
			return s.AdditionalProperties.Schema
		}
	}
	return nil
}

// path is the field path of the step below parent.
func (step schemaStep) path(parent *field.Path) *field.Path {
	if step.keyword == "properties" {
		return propertyPath(parent, step.name)
	}
	return parent.Child(step.keyword)
}

// schemaChild is a sub-schema two schemas both have, with each side's.
type schemaChild struct {
	schemaStep
	a, b *apiextensionsv1.JSONSchemaProps
}

// commonChildren are the sub-schemas a and b both have, in the order the
// walks report in: properties by name, then items, then
// additionalProperties.
func commonChildren(a, b *apiextensionsv1.JSONSchemaProps) []schemaChild {
	var out []schemaChild
	add := func(step schemaStep) {
		if ca, cb := step.in(a), step.in(b); ca != nil && cb != nil {
			out = append(out, schemaChild{step, ca, cb})
		}
	}
	for _, name := range sortedKeys(a.Properties) {
		add(schemaStep{"properties", name})
	}
	add(schemaStep{keyword: "items"})
	add(schemaStep{keyword: "additionalProperties"})
	return out
}
