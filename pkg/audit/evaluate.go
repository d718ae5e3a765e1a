package audit

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

// Evaluate checks a stored object as an UPDATE of itself: what its next
// edit will be held to. namespaceLabels are the labels of every namespace
// (Lister.NamespaceLabels).
func Evaluate(ctx context.Context, engine *policies.Engine, obj *unstructured.Unstructured, namespaceLabels map[string]map[string]string) (policies.Result, error) {
	return engine.Evaluate(ctx, policies.Request{
		Operation: v1alpha1.Update, Object: obj, OldObject: obj,
		Namespace: obj.GetNamespace(), NamespaceLabels: namespaceLabels[obj.GetNamespace()],
	})
}
