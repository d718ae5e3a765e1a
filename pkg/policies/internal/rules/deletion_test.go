package rules

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

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
	got, err := r.Check(ctx, &Request{Operation: v1alpha1.Delete, OldObject: old})
	want := "rule could not be evaluated: expression 'lists.range(1000).all(i, i >= 0)': operation interrupted: context canceled"
	if len(got) != 0 || err == nil || err.Error() != want {
		t.Fatalf("got %+v, %v\nwant the error %s", got, err, want)
	}
}
