package schema_test

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/schema"
)

// TestFastCELDifferential is the guard of the fast CEL check, which would
// be a fail-open bug if it accepted a rule kube-apiserver finds false. On
// every conformance object of a kind with CEL rules, as a create, as an
// update of itself and of its old object, and on every mutation of each
// valid one as a create and as an update of the original, it checks that
// the errors and warnings are byte-identical with and without the fast
// paths. Mutants the compiled schema check certainly rejects are left
// out: the strategy without CEL finds their errors, so the fast CEL check
// is never asked.
func TestFastCELDifferential(t *testing.T) {
	ctx := t.Context()
	var accepted int
	for _, set := range conformanceSets() {
		t.Run(set.name, func(t *testing.T) {
			registry := set.crds(t)
			var checked, mutants int
			compare := func(what string, v *schema.Validator, obj, old *unstructured.Unstructured) schema.Outcome {
				fast, upstream := schema.ValidateBothWays(ctx, v, obj, old)
				if !sameOutcome(fast, upstream) {
					t.Errorf("%s: with fast paths errors %q, warnings %q; kube-apiserver's validators alone errors %q, warnings %q",
						what, fast.Errors, fast.Warnings, upstream.Errors, upstream.Warnings)
				}
				return upstream
			}
			for _, o := range readConformanceObjects(t, set.objects) {
				v, err := registry.Validator(o.obj.GroupVersionKind())
				if err != nil || !schema.HasFastCEL(v) {
					continue // unserved, or no CEL rules: nothing for the check
				}
				name := fmt.Sprintf("%s %s", o.source, o.obj.GetName())
				checked++
				created := compare(name+" created", v, o.obj, nil)
				if schema.FastCELAccepts(ctx, v, o.obj, nil) {
					accepted++
				}
				compare(name+" updated from itself", v, o.obj, o.obj)
				base := o.obj
				if o.old != nil {
					compare(name+" updated from its old object", v, o.obj, o.old)
					base = o.old
				}
				if len(created.Errors) > 0 {
					continue // mutations of invalid objects only find the same errors
				}
				for m := range mutations(o.obj.Object) {
					mutant, ok := m.value.(map[string]any)
					if !ok || schema.FastSchemaRejects(v, v.Decode(&unstructured.Unstructured{Object: mutant}).Object) {
						continue
					}
					mutants++
					u := &unstructured.Unstructured{Object: mutant}
					compare(fmt.Sprintf("%s, %s, created", name, m.what), v, u, nil)
					compare(fmt.Sprintf("%s, %s, updated", name, m.what), v, u, base)
				}
			}
			t.Logf("%d objects, %d mutants compared", checked, mutants)
		})
	}
	if accepted == 0 {
		t.Error("the fast CEL check accepted nothing: it would pass every comparison and speed up nothing")
	}
	t.Logf("%d objects accepted by the fast CEL check on create", accepted)
}

// sameOutcome tells whether a and b have byte-identical errors and the
// same warnings, in any order: upstream's CEL validator walks maps in Go's
// map order, so the order of its warnings changes from call to call.
func sameOutcome(a, b schema.Outcome) bool {
	return slices.Equal(a.Errors, b.Errors) && slices.Equal(slices.Sorted(slices.Values(a.Warnings)), slices.Sorted(slices.Values(b.Warnings)))
}
