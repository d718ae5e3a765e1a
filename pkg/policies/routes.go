package policies

import (
	"slices"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// Route is what one policy needs the admission webhooks to send to the
// engine: the requests on its kinds, by operation.
type Route struct {
	// Policy is the GuardPolicy's name.
	Policy string
	// Resources are the policy's match.resources.
	Resources []v1alpha1.ResourceMatch
	// Validate are the operations /validate must see: the policy's, and
	// CREATE and UPDATE too when it matches DELETE, because the approval
	// of a DELETE is written by a CREATE or an UPDATE and the engine lets
	// only the policy's approvers write it.
	Validate []v1alpha1.Operation
	// Mutate are the operations /mutate must see, empty when it has
	// nothing to do for the policy: those of its mutating rules (defaults)
	// that the policy matches, and CREATE and UPDATE when it has approvers,
	// whose admitted approvals /mutate records.
	Mutate []v1alpha1.Operation
}

// Routes are the policies' routes, in policy name order.
func (e *Engine) Routes() []Route {
	out := make([]Route, 0, len(e.policies))
	for _, p := range e.policies {
		out = append(out, p.route())
	}
	return out
}

func (p *policy) route() Route {
	matched := p.Spec.Match.Operations
	if len(matched) == 0 {
		matched = rules.CreateUpdateDelete
	}
	validate := slices.Clone(matched)
	if slices.Contains(matched, v1alpha1.Delete) {
		validate = append(validate, v1alpha1.Create, v1alpha1.Update)
	}
	var mutate []v1alpha1.Operation
	for _, r := range p.Rules {
		if _, ok := r.Rule.(rules.Mutator); !ok {
			continue
		}
		for _, op := range r.Operations() {
			if slices.Contains(matched, op) {
				mutate = append(mutate, op)
			}
		}
	}
	// Without approvers no approval is ever admitted, so /mutate never
	// records one.
	if rules.HasApprovers(p.Spec.Approvers) {
		mutate = append(mutate, v1alpha1.Create, v1alpha1.Update)
	}
	return Route{
		Policy:    p.Name,
		Resources: p.Spec.Match.Resources,
		Validate:  sortedOperations(validate),
		Mutate:    sortedOperations(mutate),
	}
}

// sortedOperations are ops without repeats, in CREATE, UPDATE, DELETE
// order.
func sortedOperations(ops []v1alpha1.Operation) []v1alpha1.Operation {
	var out []v1alpha1.Operation
	for _, op := range rules.CreateUpdateDelete {
		if slices.Contains(ops, op) {
			out = append(out, op)
		}
	}
	return out
}
