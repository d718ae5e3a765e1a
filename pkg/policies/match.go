package policies

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// matchesOperation tells whether the policy applies to the request's
// operation; matchesObject decides the rest.
func (p *policy) matchesOperation(req *Request) bool {
	ops := p.spec.Match.Operations
	return len(ops) == 0 || slices.Contains(ops, req.Operation)
}

// matchesObject tells whether the policy applies to the request's object,
// whatever the operation. It returns a warning when the decision rests on
// namespace labels nobody gave us.
func (p *policy) matchesObject(req *Request) (bool, string) {
	m := &p.spec.Match
	obj := req.subject()
	gvk := obj.GroupVersionKind()
	if !slices.ContainsFunc(m.Resources, func(r v1alpha1.ResourceMatch) bool {
		return (r.Group == gvk.Group || r.Group == "*") &&
			(len(r.Versions) == 0 || slices.Contains(r.Versions, "*") || slices.Contains(r.Versions, gvk.Version)) &&
			(slices.Contains(r.Kinds, "*") || slices.Contains(r.Kinds, gvk.Kind))
	}) {
		return false, ""
	}
	if req.Namespace != "" && slices.Contains(m.ExcludedNamespaces, req.Namespace) {
		return false, ""
	}
	// Like an admission webhook's objectSelector: on UPDATE either the new
	// or the old object may match, so removing a label cannot dodge a policy.
	if !p.objectSelector.Matches(labels.Set(obj.GetLabels())) &&
		(req.OldObject == nil || !p.objectSelector.Matches(labels.Set(req.OldObject.GetLabels()))) {
		return false, ""
	}
	if p.namespaceSelector.Empty() {
		return true, ""
	}
	if req.Namespace == "" {
		return false, "" // a cluster-scoped object has no namespace to select
	}
	var warning string
	if req.NamespaceLabels == nil {
		warning = "policy " + p.name + ": the labels of namespace " + req.Namespace + " are unknown; its namespaceSelector was matched against no labels"
	}
	return p.namespaceSelector.Matches(labels.Set(req.NamespaceLabels)), warning
}
