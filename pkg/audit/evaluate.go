package audit

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

// Audit lists the objects of every target in namespace ("" for all) and
// evaluates each as an UPDATE of itself, what its next edit will be held
// to, handing fn the object with its result, or the error that kept it
// from being evaluated. Namespaces are listed only when a policy selects
// them by label, so that an audit needs no access to them otherwise. A
// failed listing, an error from fn or the end of ctx stops it.
func (l *Lister) Audit(ctx context.Context, engine *policies.Engine, targets []Target, namespace string, fn func(Target, *unstructured.Unstructured, policies.Result, error) error) error {
	var namespaceLabels map[string]map[string]string
	if engine.UsesNamespaceSelector() {
		var err error
		if namespaceLabels, err = l.NamespaceLabels(ctx); err != nil {
			return fmt.Errorf("listing namespaces: %w", err)
		}
	}
	for _, t := range targets {
		err := l.List(ctx, t, namespace, func(obj *unstructured.Unstructured) error {
			res, err := engine.Evaluate(ctx, policies.Request{
				Operation: v1alpha1.Update, Object: obj, OldObject: obj,
				Namespace: obj.GetNamespace(), NamespaceLabels: namespaceLabels[obj.GetNamespace()],
			})
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fn(t, obj, res, err)
		})
		if err != nil {
			return fmt.Errorf("listing %s: %w", t.Resource, err)
		}
	}
	return nil
}
