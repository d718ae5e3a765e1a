package policies

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// policy is a compiled GuardPolicy.
type policy struct {
	name              string
	spec              *v1alpha1.GuardPolicySpec
	namespaceSelector labels.Selector
	objectSelector    labels.Selector
	rules             []compiledRule
}

type compiledRule struct {
	name        string
	enforcement v1alpha1.Enforcement
	rule
}

// ValidateGuardPolicy returns what is wrong with a policy beyond its
// schema: paths that do not parse, CEL that does not compile, selectors,
// approvers and bounds that make no sense. schemas may be nil.
func ValidateGuardPolicy(p *v1alpha1.GuardPolicy, schemas *schema.Registry) field.ErrorList {
	_, errs := compilePolicy(p, &compileEnv{schemas: schemas})
	return errs
}

func compilePolicy(p *v1alpha1.GuardPolicy, env *compileEnv) (*policy, field.ErrorList) {
	env = &compileEnv{schemas: env.schemas}
	if env.schemas != nil {
		for _, gvk := range env.schemas.Kinds() {
			if matchesKind(p.Spec.Match.Resources, gvk) {
				env.kinds = append(env.kinds, gvk)
			}
		}
	}
	spec := field.NewPath("spec")
	var errs field.ErrorList
	compiled := &policy{name: p.Name, spec: &p.Spec}

	match := spec.Child("match")
	errs = append(errs, metav1validation.ValidateLabelSelector(p.Spec.Match.NamespaceSelector, metav1validation.LabelSelectorValidationOptions{}, match.Child("namespaceSelector"))...)
	errs = append(errs, metav1validation.ValidateLabelSelector(p.Spec.Match.ObjectSelector, metav1validation.LabelSelectorValidationOptions{}, match.Child("objectSelector"))...)
	var err error
	if compiled.namespaceSelector, err = selector(p.Spec.Match.NamespaceSelector); err != nil {
		errs = append(errs, field.Invalid(match.Child("namespaceSelector"), p.Spec.Match.NamespaceSelector, err.Error()))
	}
	if compiled.objectSelector, err = selector(p.Spec.Match.ObjectSelector); err != nil {
		errs = append(errs, field.Invalid(match.Child("objectSelector"), p.Spec.Match.ObjectSelector, err.Error()))
	}
	if p.Spec.Approvers != nil {
		for i, sa := range p.Spec.Approvers.ServiceAccounts {
			if ns, name, ok := strings.Cut(sa, "/"); !ok || ns == "" || name == "" {
				errs = append(errs, field.Invalid(spec.Child("approvers", "serviceAccounts").Index(i), sa, `must be "namespace/name"`))
			}
		}
	}

	names := map[string]bool{}
	for i := range p.Spec.Rules {
		r := &p.Spec.Rules[i]
		path := spec.Child("rules").Index(i)
		if names[r.Name] {
			errs = append(errs, field.Duplicate(path.Child("name"), r.Name))
		}
		names[r.Name] = true
		var kinds []ruleKind
		for _, k := range ruleKinds {
			if k.configured(r) {
				kinds = append(kinds, k)
			}
		}
		if len(kinds) != 1 {
			errs = append(errs, field.Invalid(path, r.Name, fmt.Sprintf("exactly one rule kind must be set, found %d; kinds: %s", len(kinds), strings.Join(kindNames(), ", "))))
			continue
		}
		compiledKind, kindErrs := kinds[0].compile(r, path, env)
		errs = append(errs, kindErrs...)
		if len(kindErrs) == 0 {
			enforcement := cmp.Or(r.Enforcement, p.Spec.Enforcement, v1alpha1.Deny)
			compiled.rules = append(compiled.rules, compiledRule{name: r.Name, enforcement: enforcement, rule: compiledKind})
		}
	}
	return compiled, errs
}

func kindNames() []string {
	names := make([]string, len(ruleKinds))
	for i, k := range ruleKinds {
		names[i] = k.name
	}
	slices.Sort(names)
	return names
}

// selector converts a label selector; nil selects everything.
func selector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return labels.Everything(), nil
	}
	return metav1.LabelSelectorAsSelector(s)
}
