package schema_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/schema"
)

// decodeSets are the conformance sets and the contraptions, whose schema
// holds what the skips of decode must get right.
func decodeSets() []conformanceSet {
	contraptions := conformanceSet{"contraptions", func(t testing.TB) *schema.Registry {
		t.Helper()
		registry, err := schema.RegistryFromFiles(t.Context(), "testdata/decode/crd.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return registry
	}, "testdata/decode/contraption.yaml"}
	return append(conformanceSets(), contraptions)
}

// TestDecodeSkipsMatchUpstream is the guard of decode's skips: on every
// conformance object and old object, and on every mutation of each (nulls
// and unknown keys at every depth, retyped embedded resources, list items
// dropped and added), decode must leave the byte-identical object and
// report the same unknown fields and error as upstream's walks on the whole
// schema, and so must the defaulting DryRun repeats on what decode left,
// with and without its status.
func TestDecodeSkipsMatchUpstream(t *testing.T) {
	for _, set := range decodeSets() {
		t.Run(set.name, func(t *testing.T) {
			registry := set.crds(t)
			var compared int
			for _, o := range readConformanceObjects(t, set.objects) {
				v, err := registry.Validator(o.obj.GroupVersionKind())
				if err != nil {
					continue // an unserved version: nothing to decode
				}
				for _, obj := range []*unstructured.Unstructured{o.obj, o.old} {
					if obj == nil {
						continue
					}
					what := fmt.Sprintf("%s %s", o.source, obj.GetName())
					compareDecodes(t, v, what, obj.Object)
					compared++
					for m := range mutations(obj.Object) {
						if mutant, ok := m.value.(map[string]any); ok {
							compareDecodes(t, v, what+", "+m.what, mutant)
							compared++
						}
					}
				}
			}
			t.Logf("%d objects compared", compared)
			if compared == 0 {
				t.Errorf("no objects in %s", set.objects)
			}
		})
	}
}

// compareDecodes decodes copies of obj with and without the skips.
func compareDecodes(t *testing.T, v *schema.Validator, what string, obj map[string]any) {
	t.Helper()
	skipping := &unstructured.Unstructured{Object: deepCopy(obj).(map[string]any)}
	unskipped := &unstructured.Unstructured{Object: deepCopy(obj).(map[string]any)}
	gotUnknown, gotErr := schema.Decode(v, skipping)
	wantUnknown, wantErr := schema.DecodeUnskipped(v, unskipped)
	if !slices.Equal(gotUnknown, wantUnknown) {
		t.Errorf("%s: unknown fields %q, upstream %q", what, gotUnknown, wantUnknown)
	}
	if (gotErr == nil) != (wantErr == nil) {
		t.Errorf("%s: error %v, upstream %v", what, gotErr, wantErr)
	}
	if gotErr != nil && wantErr != nil && !upstreamMayReport(v, obj, gotErr.Error()) {
		t.Errorf("%s: error %v, which upstream never reports (it reports %v)", what, gotErr, wantErr)
	}
	if gotErr != nil || wantErr != nil {
		return // the server stops here, whatever the object holds
	}
	compareJSON(t, what, skipping.Object, unskipped.Object)

	schema.ApplyDefaults(v, skipping.Object)
	schema.DefaultUnskipped(v, unskipped.Object)
	compareJSON(t, what+", defaulted again", skipping.Object, unskipped.Object)
	delete(skipping.Object, "status")
	delete(unskipped.Object, "status")
	schema.ApplyDefaults(v, skipping.Object)
	schema.DefaultUnskipped(v, unskipped.Object)
	compareJSON(t, what+", defaulted without status", skipping.Object, unskipped.Object)
}

// upstreamMayReport tells whether upstream's decode of obj reports the
// error message: of several errors it reports the first it meets, in map
// order, which changes from run to run, so this retries until the message
// comes (all but certain within the bound when upstream can report it).
func upstreamMayReport(v *schema.Validator, obj map[string]any, message string) bool {
	for range 1000 {
		_, err := schema.DecodeUnskipped(v, &unstructured.Unstructured{Object: deepCopy(obj).(map[string]any)})
		if err != nil && err.Error() == message {
			return true
		}
	}
	return false
}

func compareJSON(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	gotJSON, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("%s: decoded\n%s\nupstream\n%s", what, gotJSON, wantJSON)
	}
}

// TestDecodeOfContraption pins what upstream's walks do to the
// contraption, so that TestDecodeSkipsMatchUpstream compares objects on
// which each walk acts: nulls pruned and kept, defaults set under items,
// additionalProperties and nullable fields, embedded metadata coerced.
func TestDecodeOfContraption(t *testing.T) {
	registry, err := schema.RegistryFromFiles(t.Context(), "testdata/decode/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obj := readObject(t, "testdata/decode/contraption.yaml")
	obj.Object["spec"].(map[string]any)["templates"].([]any)[0].(map[string]any)["metadata"].(map[string]any)["bogus"] = "x"
	v, err := registry.Validator(obj.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	unknown, decodeErr := schema.Decode(v, obj)
	if decodeErr != nil {
		t.Fatal(decodeErr)
	}
	if want := []string{"spec.templates[0].metadata.bogus"}; !slices.Equal(unknown, want) {
		t.Errorf("unknown fields %q, want %q", unknown, want)
	}
	got, err := json.Marshal(obj.Object["spec"])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"deep":{"deeper":{"deepest":[{"level":"info","note":"x"},{"level":"debug"}],"untouched":"u"}},` +
		`"defaultedItems":["a","item"],"defaultedObject":{"enabled":true,"interval":"30s"},` +
		`"free":{"anything":null,"list":[null,{"a":null}]},"limits":{"cpu":"2","memory":"1"},` +
		`"mode":"fast","nullableItems":["a",null],"nullableMode":null,"nullablePlain":null,` +
		`"plain":"a","plainList":["a","b"],"plainMap":{"a":"b"},"plainNumber":1,` +
		`"pools":{"east":{"size":3,"zone":"e"}},"ports":[{"name":"http","port":80,"protocol":"TCP"},{"name":"https","port":443,"protocol":null}],` +
		`"template":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"a":"b"},"name":"t"},` +
		`"spec":{"inner":{"apiVersion":"v1","kind":"Secret","metadata":{"name":"inner"}}}},` +
		`"templates":[{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{"a":"b"},"name":"p"}}],` +
		`"templatesByName":{"one":{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}}}}`
	if string(got) != want {
		t.Errorf("decoded spec\n%s\nwant\n%s", got, want)
	}
}

// TestWalkSchemasKeepOnlyWhereWalksAct checks that the skips happen: a
// trimmed schema that kept everything would pass every comparison with
// upstream and skip nothing.
func TestWalkSchemasKeepOnlyWhereWalksAct(t *testing.T) {
	registry, err := schema.RegistryFromFiles(t.Context(), "testdata/decode/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, err := registry.Validator(readObject(t, "testdata/decode/contraption.yaml").GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	defaulting, coercion := schema.WalkSchemas(v)
	wantDefaulting := []string{
		"spec.deep.deeper.deepest[].level", "spec.defaultedItems[]", "spec.defaultedObject.interval",
		"spec.limits{}", "spec.mode", "spec.nullableMode", "spec.pools{}.size", "spec.ports[].port",
		"spec.ports[].protocol", "status.phase",
	}
	if got := schemaLeaves(defaulting, ""); !slices.Equal(got, wantDefaulting) {
		t.Errorf("defaulting schema leaves %q, want %q", got, wantDefaulting)
	}
	wantCoercion := []string{"spec.template.spec.inner", "spec.templatesByName{}", "spec.templates[]"}
	if got := schemaLeaves(coercion, ""); !slices.Equal(got, wantCoercion) {
		t.Errorf("coercion schema leaves %q, want %q", got, wantCoercion)
	}

	// A schema without defaults or embedded resources skips both walks.
	gadgets, err := schema.RegistryFromFiles(t.Context(), "testdata/gadgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gadget, err := gadgets.Validator(k8sschema.GroupVersionKind{Group: "test.crdguard.dev", Version: "v1", Kind: "Gadget"})
	if err != nil {
		t.Fatal(err)
	}
	if defaulting, coercion := schema.WalkSchemas(gadget); defaulting != nil || coercion != nil {
		t.Errorf("gadgets: defaulting %q, coercion %q; want both skipped", schemaLeaves(defaulting, ""), schemaLeaves(coercion, ""))
	}
}

// schemaLeaves lists the paths to s's leaves, sorted: [] for items, {}
// for additionalProperties.
func schemaLeaves(s *structuralschema.Structural, path string) []string {
	if s == nil {
		return nil
	}
	var leaves []string
	for name, property := range s.Properties {
		sep := "."
		if path == "" {
			sep = ""
		}
		leaves = append(leaves, schemaLeaves(&property, path+sep+name)...)
	}
	leaves = append(leaves, schemaLeaves(s.Items, path+"[]")...)
	if s.AdditionalProperties != nil {
		leaves = append(leaves, schemaLeaves(s.AdditionalProperties.Structural, path+"{}")...)
	}
	if len(leaves) == 0 && path != "" {
		leaves = []string{path}
	}
	slices.Sort(leaves)
	return leaves
}
