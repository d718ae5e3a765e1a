package schema_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/schema"
)

// TestCreateWalksDifferential is the guard of the strategy that validates
// creates on the fast paths, whose embedded-resource and list-type walks
// follow a schema trimmed to where they can find an error: had the trim
// lost such a node, the strategy would find nothing where kube-apiserver's
// finds an error, a fail-open bug. On every conformance object, the
// mutations of each valid one and mutations aimed at both walks (duplicate
// list items and keys, embedded resources without apiVersion or kind, or
// with a bad apiVersion, kind, name or label), it checks that the errors
// of a create are byte-identical with the trimmed schema and the whole one,
// and that the walks found errors to compare.
func TestCreateWalksDifferential(t *testing.T) {
	ctx := t.Context()
	var embeddedErrors, listTypeErrors int
	for _, set := range decodeSets() {
		t.Run(set.name, func(t *testing.T) {
			registry := set.crds(t)
			var compared int
			compare := func(what string, v *schema.Validator, obj map[string]any) schema.CreateStrategyOutcome {
				outcome, ok := schema.CreateStrategyErrors(ctx, v, &unstructured.Unstructured{Object: obj})
				if !ok {
					return outcome
				}
				compared++
				if !slices.Equal(outcome.Trimmed, outcome.Whole) {
					t.Errorf("%s: on the trimmed schema errors %q, on the whole schema %q", what, outcome.Trimmed, outcome.Whole)
				}
				if len(outcome.EmbeddedWalk) > 0 {
					embeddedErrors++
				}
				if len(outcome.ListTypeWalk) > 0 {
					listTypeErrors++
				}
				return outcome
			}
			for _, o := range readConformanceObjects(t, set.objects) {
				v, err := registry.Validator(o.obj.GroupVersionKind())
				if err != nil {
					continue // an unserved version: nothing to validate
				}
				name := fmt.Sprintf("%s %s", o.source, o.obj.GetName())
				if outcome := compare(name, v, o.obj.Object); len(outcome.Whole) > 0 {
					continue // mutations of invalid objects only find the same errors
				}
				for m := range mutations(o.obj.Object) {
					if mutant, ok := m.value.(map[string]any); ok {
						compare(name+", "+m.what, v, mutant)
					}
				}
				for m := range walkMutations(o.obj.Object) {
					compare(name+", "+m.what, v, m.value.(map[string]any))
				}
			}
			t.Logf("%d creates compared", compared)
		})
	}
	if embeddedErrors == 0 || listTypeErrors == 0 {
		t.Errorf("the whole schema's walks found errors in %d creates (embedded resources) and %d (list types), want some of each", embeddedErrors, listTypeErrors)
	}
	t.Logf("the walks found errors in %d creates (embedded resources) and %d (list types)", embeddedErrors, listTypeErrors)
}

// walkMutations yields copies of obj with one change each that the
// embedded-resource or list-type walk reports where the schema asks for
// it: at every list its first item repeated (a duplicate set item or map
// key) or made a string, and at every object below the root that holds an
// apiVersion, kind or metadata, each of those missing or made invalid.
func walkMutations(obj map[string]any) func(yield func(mutation) bool) {
	return func(yield func(mutation) bool) {
		for path, node := range nodes(obj) {
			var changes map[string]any
			switch node := node.(type) {
			case []any:
				if len(node) > 0 {
					changes = map[string]any{
						"first item repeated": append(slices.Clone(node), deepCopy(node[0])),
						"first item a string": append([]any{"x"}, node[1:]...),
					}
				}
			case map[string]any:
				if len(path) > 0 && (node["apiVersion"] != nil || node["kind"] != nil || node["metadata"] != nil) {
					changes = embeddedChanges(node)
				}
			}
			for _, what := range slices.Sorted(mapKeys(changes)) {
				if !yield(mutation{fmt.Sprintf("%v: %s", path, what), replaceAt(obj, path, changes[what])}) {
					return
				}
			}
		}
	}
}

// embeddedChanges are the copies of an embedded resource that the
// embedded-resource walk reports.
func embeddedChanges(node map[string]any) map[string]any {
	changed := func(change func(map[string]any)) map[string]any {
		out := deepCopy(node).(map[string]any)
		change(out)
		return out
	}
	withMetadata := func(key string, value any) func(map[string]any) {
		return func(out map[string]any) {
			metadata, _ := out["metadata"].(map[string]any)
			if metadata == nil {
				metadata = map[string]any{}
			}
			metadata[key] = value
			out["metadata"] = metadata
		}
	}
	return map[string]any{
		"without apiVersion": changed(func(out map[string]any) { delete(out, "apiVersion") }),
		"without kind":       changed(func(out map[string]any) { delete(out, "kind") }),
		"bad apiVersion":     changed(func(out map[string]any) { out["apiVersion"] = "a/b/c" }),
		"bad kind":           changed(func(out map[string]any) { out["kind"] = "Not_A_Kind" }),
		"empty kind":         changed(func(out map[string]any) { out["kind"] = "" }),
		"bad name":           changed(withMetadata("name", "Bad_Name!")),
		"bad generateName":   changed(withMetadata("generateName", "Bad_")),
		"bad label":          changed(withMetadata("labels", map[string]any{"bad key!": strings.Repeat("v", 70)})),
		"bad namespace":      changed(withMetadata("namespace", "Bad_Namespace")),
	}
}
