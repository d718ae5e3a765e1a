package vap

import (
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
	"github.com/crdguard/crdguard/pkg/policies/vap/internal/celrewrite"
	"github.com/crdguard/crdguard/pkg/schema"
)

// MutatingName is the name of the MutatingAdmissionPolicy (and binding)
// that holds a GuardPolicy's defaults.
func MutatingName(policy string) string { return "crdguard-" + policy + "-defaults" }

// mutationBuilder collects a policy's defaults rules, one mutation each,
// in policy order: each sees the object as the ones before it left it, as
// the engine's mutators do.
type mutationBuilder struct {
	variables []admissionregistrationv1.Variable
	mutations []admissionregistrationv1.Mutation
}

func (b *mutationBuilder) add(d *rules.Defaults, c *compiler) error {
	mutation, helpers, err := compileDefaults(d, c)
	if err != nil {
		return err
	}
	for _, h := range helpers {
		if h.Expression, err = celrewrite.LowerBinds(h.Expression); err != nil {
			return err
		}
		b.variables = append(b.variables, h)
	}
	if mutation.JSONPatch.Expression, err = celrewrite.LowerBinds(mutation.JSONPatch.Expression); err != nil {
		return err
	}
	b.mutations = append(b.mutations, mutation)
	return nil
}

// objects are the MutatingAdmissionPolicy and its binding, nil when no
// rule compiled or the policy matches no CREATE or UPDATE, the only
// operations defaults run on.
func (b *mutationBuilder) objects(gp *v1alpha1.GuardPolicy, schemas *schema.Registry) (*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	if len(b.mutations) == 0 {
		return nil, nil
	}
	constraints, conditions := matchResources(&gp.Spec.Match, schemas)
	for i := range constraints.ResourceRules {
		r := &constraints.ResourceRules[i]
		r.Operations = slices.DeleteFunc(r.Operations, func(op admissionregistrationv1.OperationType) bool {
			return op != admissionregistrationv1.Create && op != admissionregistrationv1.Update
		})
	}
	constraints.ResourceRules = slices.DeleteFunc(constraints.ResourceRules, func(r admissionregistrationv1.NamedRuleWithOperations) bool {
		return len(r.Operations) == 0
	})
	if len(constraints.ResourceRules) == 0 {
		return nil, nil
	}
	name := MutatingName(gp.Name)
	meta := generatedMeta(name, gp.Name)
	fail := admissionregistrationv1.Fail
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{
		TypeMeta:   typeMeta("MutatingAdmissionPolicy"),
		ObjectMeta: *meta.DeepCopy(),
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			FailurePolicy:      &fail,
			MatchConstraints:   constraints,
			MatchConditions:    conditions,
			Variables:          append(slices.Clip(quantityFormat), b.variables...),
			Mutations:          b.mutations,
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		TypeMeta:   typeMeta("MutatingAdmissionPolicyBinding"),
		ObjectMeta: meta,
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: name},
	}
	return policy, binding
}
