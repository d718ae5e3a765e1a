package diff

import (
	"strconv"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// BenchmarkCompare diffs a CRD of the size of the largest real ones
// (thousands of schema nodes, as prometheus-operator's Prometheus) against
// a copy with one change per object.
func BenchmarkCompare(b *testing.B) {
	old := &apiextensionsv1.CustomResourceDefinition{}
	old.Name = "widgets.example.com"
	old.Spec = apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
		Names:    apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget", Plural: "widgets"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: wideSchema(3, 12)}}},
	}
	new := old.DeepCopy()
	for name, p := range new.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties {
		p.Description = "changed"
		new.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties[name] = p
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compare(old, new); err != nil {
			b.Fatal(err)
		}
	}
}

// wideSchema is an object schema of the given depth with width properties
// per level: width^depth leaves.
func wideSchema(depth, width int) *apiextensionsv1.JSONSchemaProps {
	s := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{}}
	for i := range width {
		if depth == 1 {
			s.Properties["f"+strconv.Itoa(i)] = apiextensionsv1.JSONSchemaProps{Type: "string", MaxLength: new(int64)}
			continue
		}
		s.Properties["f"+strconv.Itoa(i)] = *wideSchema(depth-1, width)
	}
	return s
}
