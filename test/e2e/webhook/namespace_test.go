package webhook

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestNamespaceSelector: the webhook reads namespace labels from the
// cluster (the API server does not send them), and follows changes to
// them without a restart.
func TestNamespaceSelector(t *testing.T) {
	ns := namespace(t)
	setFrozen := func(frozen bool) {
		t.Helper()
		obj := &corev1.Namespace{}
		if err := cluster.client.Get(t.Context(), client.ObjectKey{Name: ns}, obj); err != nil {
			t.Fatal(err)
		}
		if obj.Labels == nil {
			obj.Labels = map[string]string{}
		}
		if frozen {
			obj.Labels["crdguard.dev/frozen"] = "true"
		} else {
			delete(obj.Labels, "crdguard.dev/frozen")
		}
		if err := cluster.client.Update(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
	// Dry runs, so the verdict can be asked again and again.
	verdict := func(ctx context.Context) error {
		return cluster.client.Create(ctx, example(t, "good.yaml", ns), client.DryRunAll)
	}

	setFrozen(true)
	var err error
	// The cache sees the label shortly after the update.
	if werr := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err = verdict(ctx)
		return err != nil, nil
	}); werr != nil {
		t.Fatalf("good.yaml in a frozen namespace was never denied: %v", werr)
	}
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "this namespace is frozen") {
		t.Fatalf("in a frozen namespace: %v, want the frozen-namespaces denial", err)
	}

	setFrozen(false)
	if werr := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err = verdict(ctx)
		return err == nil, nil
	}); werr != nil {
		t.Fatalf("good.yaml was still denied after the namespace thawed: %v", err)
	}
}
