package policies

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// matchesOperation tells whether the policy applies to the request's
// operation; matchesObject decides the rest.
func (p *policy) matchesOperation(req *Request) bool {
	ops := p.spec.Match.Operations
	return len(ops) == 0 || slices.Contains(ops, req.Operation)
}

// matchesObject tells whether the policy applies to the request's object,
// whatever the operation. A namespaceSelector needs the namespace's
// labels: unknown labels are an *UnknownNamespaceError, since matching
// them as none would skip a matchLabels policy that applies.
func (p *policy) matchesObject(req *Request) (bool, error) {
	m := &p.spec.Match
	obj := req.subject()
	if !matchesKind(m.Resources, obj.GroupVersionKind()) {
		return false, nil
	}
	if req.Namespace != "" && slices.Contains(m.ExcludedNamespaces, req.Namespace) {
		return false, nil
	}
	// Like an admission webhook's objectSelector: on UPDATE either the new
	// or the old object may match, so removing a label cannot dodge a policy.
	if !p.objectSelector.Matches(labels.Set(obj.GetLabels())) &&
		(req.OldObject == nil || !p.objectSelector.Matches(labels.Set(req.OldObject.GetLabels()))) {
		return false, nil
	}
	if p.namespaceSelector.Empty() {
		return true, nil
	}
	if req.Namespace == "" {
		return false, nil // a cluster-scoped object has no namespace to select
	}
	if req.NamespaceLabels == nil {
		return false, &UnknownNamespaceError{Namespace: req.Namespace, Policy: p.name}
	}
	return p.namespaceSelector.Matches(labels.Set(req.NamespaceLabels)), nil
}

// UnknownNamespaceError is a request whose namespace's labels a policy's
// namespaceSelector needs, and Request.NamespaceLabels does not give.
type UnknownNamespaceError struct {
	Namespace, Policy string
}

func (e *UnknownNamespaceError) Error() string {
	return fmt.Sprintf("the labels of namespace %s are unknown, and GuardPolicy %s selects namespaces by label", e.Namespace, e.Policy)
}

// matchesKind tells whether resources select gvk.
func matchesKind(resources []v1alpha1.ResourceMatch, gvk runtimeschema.GroupVersionKind) bool {
	return slices.ContainsFunc(resources, func(r v1alpha1.ResourceMatch) bool {
		return (r.Group == gvk.Group || r.Group == "*") &&
			(len(r.Versions) == 0 || slices.Contains(r.Versions, "*") || slices.Contains(r.Versions, gvk.Version)) &&
			(slices.Contains(r.Kinds, "*") || slices.Contains(r.Kinds, gvk.Kind))
	})
}
