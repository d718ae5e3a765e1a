package schema_test

import (
	"reflect"
	"slices"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/schema"
)

// TestCELSchemaAnswersAsUpstream walks the schemas of the real CRDs with
// CEL rules and checks that the fast CEL check's adapter answers every
// question CEL values ask as upstream's model.Structural does, at every
// node, and that it builds each node's properties once.
func TestCELSchemaAnswersAsUpstream(t *testing.T) {
	empty := &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{}}
	schemas := map[string]*structuralschema.Structural{"empty properties": empty}
	for _, set := range []corpus.Set{corpus.GatewayAPI, corpus.CertManager} {
		crds, err := set.CRDs(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, crd := range crds {
			for _, version := range crd.Spec.Versions {
				s, err := schema.StructuralSchema(crd, version.Name)
				if err != nil {
					t.Fatal(err)
				}
				schemas[crd.Name+"/"+version.Name] = s
			}
		}
	}
	for name, s := range schemas {
		cached, upstream := schema.CELSchemas(s)
		nodes := compareCELSchemas(t, name, cached, upstream, 0)
		if nodes == 0 {
			t.Errorf("%s: compared no node", name)
		}
	}
}

// compareCELSchemas compares cached with upstream, and the schemas below
// them to depth 12; it returns how many nodes it compared.
func compareCELSchemas(t *testing.T, path string, cached, upstream common.Schema, depth int) int {
	t.Helper()
	if (cached == nil) != (upstream == nil) {
		t.Errorf("%s: adapter %v, upstream %v", path, cached, upstream)
		return 0
	}
	if cached == nil || depth > 12 {
		return 0
	}
	same := func(what string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: %s %v, upstream %v", path, what, a, b)
		}
	}
	same("type", cached.Type(), upstream.Type())
	same("format", cached.Format(), upstream.Format())
	same("nullable", cached.Nullable(), upstream.Nullable())
	same("int-or-string", cached.IsXIntOrString(), upstream.IsXIntOrString())
	same("embedded resource", cached.IsXEmbeddedResource(), upstream.IsXEmbeddedResource())
	same("preserve unknown fields", cached.IsXPreserveUnknownFields(), upstream.IsXPreserveUnknownFields())
	same("list type", cached.XListType(), upstream.XListType())
	same("list map keys", cached.XListMapKeys(), upstream.XListMapKeys())
	same("map type", cached.XMapType(), upstream.XMapType())
	props, upstreamProps := cached.Properties(), upstream.Properties()
	same("properties is nil", props == nil, upstreamProps == nil)
	same("property names", slices.Sorted(mapKeysOf(props)), slices.Sorted(mapKeysOf(upstreamProps)))
	if again := cached.Properties(); props != nil && reflect.ValueOf(again).UnsafePointer() != reflect.ValueOf(props).UnsafePointer() {
		t.Errorf("%s: properties built again on the second call", path)
	}
	n := 1
	for name, prop := range props {
		n += compareCELSchemas(t, path+"."+name, prop, upstreamProps[name], depth+1)
	}
	n += compareCELSchemas(t, path+"[]", cached.Items(), upstream.Items(), depth+1)
	ap, upstreamAP := cached.AdditionalProperties(), upstream.AdditionalProperties()
	same("additionalProperties is nil", ap == nil, upstreamAP == nil)
	if ap != nil && upstreamAP != nil {
		same("additionalProperties allows", ap.Allows(), upstreamAP.Allows())
		n += compareCELSchemas(t, path+"{}", ap.Schema(), upstreamAP.Schema(), depth+1)
	}
	if depth == 0 || cached.IsXEmbeddedResource() {
		with, upstreamWith := cached.WithTypeAndObjectMeta(), upstream.WithTypeAndObjectMeta()
		same("with type and object meta: property names", slices.Sorted(mapKeysOf(with.Properties())), slices.Sorted(mapKeysOf(upstreamWith.Properties())))
		n += compareCELSchemas(t, path+"(with type and object meta).metadata", with.Properties()["metadata"], upstreamWith.Properties()["metadata"], depth+1)
	}
	return n
}

func mapKeysOf(m map[string]common.Schema) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
