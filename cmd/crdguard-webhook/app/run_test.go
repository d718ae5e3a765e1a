package app

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestNamespaceLabels(t *testing.T) {
	c := fake.NewClientBuilder().WithObjects(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"env": "prod"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bare"}},
	).Build()
	lookup := namespaceLabels(c, nil)

	got, err := lookup(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"env": "prod"}, got); diff != "" {
		t.Errorf("labels of shop (-want +got):\n%s", diff)
	}
	if got, err := lookup(t.Context(), "bare"); err != nil || len(got) != 0 {
		t.Errorf("labels of bare = %v, %v; want none", got, err)
	}
	if _, err := lookup(t.Context(), "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("a missing namespace: %v, want NotFound", err)
	}
}

// TestNamespaceLabelsCacheMiss: a namespace the cache has not seen yet is
// read from the API server, not reported missing.
func TestNamespaceLabelsCacheMiss(t *testing.T) {
	cached := fake.NewClientBuilder().Build()
	live := fake.NewClientBuilder().WithObjects(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "new", Labels: map[string]string{"env": "prod"}}},
	).Build()
	got, err := namespaceLabels(cached, live)(t.Context(), "new")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"env": "prod"}, got); diff != "" {
		t.Errorf("labels of new (-want +got):\n%s", diff)
	}
	if _, err := namespaceLabels(cached, live)(t.Context(), "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("a namespace missing from both: %v, want NotFound", err)
	}
}
