package policies

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// matchesOperation tells whether the policy applies to the request's
// operation; matchesObject decides the rest.
func (p *policy) matchesOperation(req *Request) bool {
	ops := p.Spec.Match.Operations
	return len(ops) == 0 || slices.Contains(ops, req.Operation)
}

// matchedObject is what policies match a request's object by, read once
// per request rather than once per policy.
type matchedObject struct {
	gvk    runtimeschema.GroupVersionKind
	labels labels.Set
	// oldLabels are the stored object's on UPDATE and DELETE, else nil.
	oldLabels labels.Set
}

func newMatchedObject(req *Request) *matchedObject {
	obj := req.subject()
	m := &matchedObject{gvk: obj.GroupVersionKind(), labels: labels.Set(obj.GetLabels())}
	if req.OldObject != nil {
		m.oldLabels = labels.Set(req.OldObject.GetLabels())
		if m.oldLabels == nil {
			m.oldLabels = labels.Set{}
		}
	}
	return m
}

// matchesObject tells whether the policy applies to the request's object,
// whatever the operation. A namespaceSelector needs the namespace's
// labels: unknown labels are an *UnknownNamespaceError, since matching
// them as none would skip a matchLabels policy that applies.
func (p *policy) matchesObject(req *Request, obj *matchedObject) (bool, error) {
	m := &p.Spec.Match
	if !rules.MatchesKind(m.Resources, obj.gvk) {
		return false, nil
	}
	if req.Namespace != "" && slices.Contains(m.ExcludedNamespaces, req.Namespace) {
		return false, nil
	}
	// Like an admission webhook's objectSelector: on UPDATE either the new
	// or the old object may match, so removing a label cannot dodge a policy.
	if !p.ObjectSelector.Matches(obj.labels) &&
		(obj.oldLabels == nil || !p.ObjectSelector.Matches(obj.oldLabels)) {
		return false, nil
	}
	if p.NamespaceSelector.Empty() {
		return true, nil
	}
	if req.Namespace == "" {
		return false, nil // a cluster-scoped object has no namespace to select
	}
	if req.NamespaceLabels == nil {
		e := &UnknownNamespaceError{Namespace: req.Namespace, Policy: p.Name}
		if !p.matchesOperation(req) {
			e.Operations = p.Spec.Match.Operations
		}
		return false, e
	}
	return p.NamespaceSelector.Matches(labels.Set(req.NamespaceLabels)), nil
}

// UnknownNamespaceError is a request whose namespace's labels a policy's
// namespaceSelector needs, and Request.NamespaceLabels does not give:
// the policy matches the request's operation, or the request carries an
// approval, which the policy's approvers alone may write.
type UnknownNamespaceError struct {
	Namespace, Policy string
	// Operations are the policy's, when they do not include the request's:
	// its selector then decides whether it judges the request's approval.
	Operations []v1alpha1.Operation
}

func (e *UnknownNamespaceError) Error() string {
	msg := fmt.Sprintf("the labels of namespace %s are unknown, and GuardPolicy %s selects namespaces by label", e.Namespace, e.Policy)
	if len(e.Operations) > 0 {
		ops := make([]string, len(e.Operations))
		for i, op := range e.Operations {
			ops[i] = string(op)
		}
		msg += fmt.Sprintf(": it matches only %s, and judges the approval (%s or %s) this request carries", strings.Join(ops, ", "), v1alpha1.ApproveAnnotation, v1alpha1.LastApprovalAnnotation)
	}
	return msg
}
