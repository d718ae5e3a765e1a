package webhook

import (
	"context"
	"fmt"

	"github.com/crdguard/crdguard/pkg/policies"
)

// NamespaceLabelsFunc returns the labels of a namespace, for policies with
// a namespaceSelector. The API server does not send them with the request.
type NamespaceLabelsFunc func(ctx context.Context, namespace string) (map[string]string, error)

// addNamespaceLabels fills req.NamespaceLabels when a policy selects
// namespaces by label, as `crdguard validate` fills them from the
// Namespace objects among its inputs. Without a lookup the labels stay
// unknown, which the engine answers with an error. A lookup that fails is
// an error too: matching against no labels could skip a policy that applies.
func addNamespaceLabels(ctx context.Context, lookup NamespaceLabelsFunc, engine *policies.Engine, req *policies.Request) error {
	if lookup == nil || req.Namespace == "" || !engine.UsesNamespaceSelector() {
		return nil
	}
	labels, err := lookup(ctx, req.Namespace)
	if err != nil {
		return fmt.Errorf("reading the labels of namespace %s: %w", req.Namespace, err)
	}
	if labels == nil {
		// Known to have none, which is not the same as unknown.
		labels = map[string]string{}
	}
	req.NamespaceLabels = labels
	return nil
}
