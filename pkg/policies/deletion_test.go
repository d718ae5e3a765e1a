package policies

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestDeletion(t *testing.T) { runCases(t, "deletion") }

// TestDeletionUnevaluable checks that a condition that reaches no verdict
// (here: the request was cancelled) is an error whatever the rule's
// enforcement: the webhook's failurePolicy decides.
func TestDeletionUnevaluable(t *testing.T) {
	spec := v1alpha1.Rule{Name: "protect", Enforcement: v1alpha1.Audit, Deletion: &v1alpha1.DeletionRule{Condition: "lists.range(1000).all(i, i >= 0)"}}
	r, errs := compileDeletion(&spec, nil, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	old := &unstructured.Unstructured{Object: map[string]any{"kind": "MySQLCluster", "metadata": map[string]any{"name": "prod"}}}
	got, err := r.check(ctx, &Request{Operation: v1alpha1.Delete, OldObject: old})
	want := "rule could not be evaluated: expression 'lists.range(1000).all(i, i >= 0)': operation interrupted: context canceled"
	if len(got) != 0 || err == nil || err.Error() != want {
		t.Fatalf("got %+v, %v\nwant the error %s", got, err, want)
	}
}

func TestDeletionCompileErrors(t *testing.T) {
	p := celPolicy(v1alpha1.Rule{Name: "protect", Deletion: &v1alpha1.DeletionRule{Condition: "object.spec.storage.reclaimPolicy", Message: "a\nb"}})
	want := []string{
		`spec.rules[0].deletion.condition: Invalid value: "object.spec.storage.reclaimPolicy": must evaluate to bool but got dyn`,
		`spec.rules[0].deletion.message: Invalid value: "a\nb": must not contain line breaks`,
	}
	errs := ValidateGuardPolicy(p, nil)
	if len(errs) != len(want) {
		t.Fatalf("got %v\nwant %q", errs, want)
	}
	for i, e := range errs {
		if e.Error() != want[i] {
			t.Errorf("got  %s\nwant %s", e.Error(), want[i])
		}
	}
}
