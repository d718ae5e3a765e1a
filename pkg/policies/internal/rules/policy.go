package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Policy is a compiled GuardPolicy.
type Policy struct {
	Name              string
	Spec              *v1alpha1.GuardPolicySpec
	NamespaceSelector labels.Selector
	ObjectSelector    labels.Selector
	// Kinds are the kinds of the loaded CRDs the policy matches, as the
	// rules were checked against them; nil when no CRDs are loaded.
	Kinds []runtimeschema.GroupVersionKind
	Rules []Compiled
}

// Compiled is a compiled rule of a policy, with its name and enforcement.
type Compiled struct {
	Name        string
	Enforcement v1alpha1.Enforcement
	Rule
}

// CompilePolicy compiles p, or returns what is wrong with it beyond its
// schema: paths that do not parse, CEL that does not compile, selectors,
// approvers and bounds that make no sense. schemas may be nil: then list
// items cannot be matched by the CRDs' list-map keys.
func CompilePolicy(p *v1alpha1.GuardPolicy, schemas *schema.Registry) (*Policy, field.ErrorList) {
	return NewCompiler(schemas).Compile(p)
}

// Compile compiles p like CompilePolicy, sharing the rules it has in
// common with the policies compiled before.
func (c *Compiler) Compile(p *v1alpha1.GuardPolicy) (*Policy, field.ErrorList) {
	schemas := c.schemas
	env := &compileEnv{schemas: schemas}
	if env.schemas != nil {
		for _, gvk := range env.schemas.Kinds() {
			if MatchesKind(p.Spec.Match.Resources, gvk) {
				env.kinds = append(env.kinds, gvk)
			}
		}
	}
	spec := field.NewPath("spec")
	var errs field.ErrorList
	compiled := &Policy{Name: p.Name, Spec: &p.Spec, Kinds: env.kinds}

	match := spec.Child("match")
	errs = append(errs, metav1validation.ValidateLabelSelector(p.Spec.Match.NamespaceSelector, metav1validation.LabelSelectorValidationOptions{}, match.Child("namespaceSelector"))...)
	errs = append(errs, metav1validation.ValidateLabelSelector(p.Spec.Match.ObjectSelector, metav1validation.LabelSelectorValidationOptions{}, match.Child("objectSelector"))...)
	var err error
	if compiled.NamespaceSelector, err = Selector(p.Spec.Match.NamespaceSelector); err != nil {
		errs = append(errs, field.Invalid(match.Child("namespaceSelector"), p.Spec.Match.NamespaceSelector, err.Error()))
	}
	if compiled.ObjectSelector, err = Selector(p.Spec.Match.ObjectSelector); err != nil {
		errs = append(errs, field.Invalid(match.Child("objectSelector"), p.Spec.Match.ObjectSelector, err.Error()))
	}
	if p.Spec.Approvers != nil {
		errs = append(errs, ValidateServiceAccountApprovers(p.Spec.Approvers.ServiceAccounts, spec.Child("approvers", "serviceAccounts"))...)
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
		compiledKind, kindErrs := c.rule(kinds[0], r, path, env)
		errs = append(errs, kindErrs...)
		if len(kindErrs) == 0 {
			enforcement := cmp.Or(r.Enforcement, p.Spec.Enforcement, v1alpha1.Deny)
			compiled.Rules = append(compiled.Rules, Compiled{Name: r.Name, Enforcement: enforcement, Rule: compiledKind})
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

// Selector converts a label selector; nil selects everything.
func Selector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return labels.Everything(), nil
	}
	return metav1.LabelSelectorAsSelector(s)
}

// MatchesKind tells whether resources select gvk.
func MatchesKind(resources []v1alpha1.ResourceMatch, gvk runtimeschema.GroupVersionKind) bool {
	return slices.ContainsFunc(resources, func(r v1alpha1.ResourceMatch) bool {
		return (r.Group == gvk.Group || r.Group == "*") &&
			(len(r.Versions) == 0 || slices.Contains(r.Versions, "*") || slices.Contains(r.Versions, gvk.Version)) &&
			(slices.Contains(r.Kinds, "*") || slices.Contains(r.Kinds, gvk.Kind))
	})
}

// strictness orders enforcements; a finding's own enforcement may soften
// its rule's but never harden it, so an Audit policy never denies.
var strictness = map[v1alpha1.Enforcement]int{v1alpha1.Audit: 1, v1alpha1.Warn: 2, v1alpha1.Deny: 3}

// Weaker is the enforcement of a finding of a rule: the finding's own when
// it is set and weaker than the rule's.
func Weaker(finding, rule v1alpha1.Enforcement) v1alpha1.Enforcement {
	if finding != "" && strictness[finding] < strictness[rule] {
		return finding
	}
	return rule
}

// HasApprovers tells whether anyone may approve the policy: a user, a
// group or a service account. "approvers: {}" lists nobody, so it is no
// approvers, for the engine and for the compiled policies alike.
func HasApprovers(a *v1alpha1.Approvers) bool {
	return a != nil && len(a.Users)+len(a.Groups)+len(a.ServiceAccounts) > 0
}

// ValidateServiceAccountApprovers checks that each service account approver
// is "namespace/name": any other entry would never match a user, and
// approve nothing without a word.
func ValidateServiceAccountApprovers(serviceAccounts []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, sa := range serviceAccounts {
		if ns, name, ok := strings.Cut(sa, "/"); !ok || ns == "" || name == "" {
			errs = append(errs, field.Invalid(path.Index(i), sa, `must be "namespace/name"`))
		}
	}
	return errs
}
