package policies

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Labels and annotations on every generated object, so a cluster's
// compiled policies can be listed and traced to their GuardPolicy.
const (
	VAPManagedByLabel      = "app.kubernetes.io/managed-by"
	VAPManagedBy           = "crdguard"
	VAPPolicyAnnotation    = "crdguard.dev/policy"
	VAPEnforcementLabel    = "crdguard.dev/enforcement"
	vapFindingSeparator    = "; "
	vapMessageFallbackText = "failed; the finding could not be described"
	vapGateCondition       = "fails-a-rule"
)

// VAPRule says where one rule of a GuardPolicy runs once compiled.
type VAPRule struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Webhook is why the rule stays with the webhook; "" when a
	// ValidatingAdmissionPolicy enforces it.
	Webhook string `json:"webhook,omitempty"`
}

// VAP is a GuardPolicy compiled to ValidatingAdmissionPolicies: one policy
// and one binding per enforcement its rules use, because a binding's
// validationActions apply to all of a policy's validations.
type VAP struct {
	Policy   string
	Policies []*admissionregistrationv1.ValidatingAdmissionPolicy
	Bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	// Rules lists every rule in policy order, compiled or not: nothing is
	// dropped silently.
	Rules []VAPRule
}

// needsWebhookError is a rule, or part of one, that a
// ValidatingAdmissionPolicy cannot express.
type needsWebhookError struct{ reason string }

func (e *needsWebhookError) Error() string { return e.reason }

func needsWebhook(format string, args ...any) error {
	return &needsWebhookError{reason: fmt.Sprintf(format, args...)}
}

// vapCheck is one validation of a compiled rule.
type vapCheck struct {
	// findings is a CEL list(string) of the rule's findings, each "path:
	// body" as the engine prints a finding on one line; empty when the
	// request passes.
	findings string
	// passes, when set, is the boolean form of findings as the rule kind
	// writes it: true exactly when findings is empty. Else it is derived
	// from findings.
	passes string
	// expression, messageExpression and message form a validation of its
	// own when findings is "": a cel rule keeps its expression, so it
	// behaves as the rule's author wrote it.
	expression, messageExpression, message string
	// enforcement, when set and weaker than the rule's, replaces it, as a
	// finding's does in the engine.
	enforcement v1alpha1.Enforcement
	// helpers are variables the expressions use as variables.<name>. Each
	// expression is type-checked alone, and checking time grows faster
	// than an expression's size: large parts go into helpers.
	helpers []admissionregistrationv1.Variable
}

// vapCompiler is what rule kinds may use while compiling to CEL.
type vapCompiler struct {
	names   *celNames
	schemas *schema.Registry
	match   *v1alpha1.Match
	// enforcement is the rule's.
	enforcement v1alpha1.Enforcement
}

// CompileVAP compiles a GuardPolicy to ValidatingAdmissionPolicies and
// their bindings (admissionregistration.k8s.io/v1) that reach the
// engine's verdict on the requests the policy matches, with each finding's
// field path and numbers in the message. Rules that need the webhook are
// listed in VAP.Rules with the reason. schemas may be nil; transitions
// that match list items by the CRD's list-map keys need it.
func CompileVAP(gp *v1alpha1.GuardPolicy, schemas *schema.Registry) (*VAP, error) {
	compiled, errs := compilePolicy(gp, &compileEnv{schemas: schemas})
	if len(errs) > 0 {
		return nil, &InvalidPolicyError{Name: gp.Name, Errs: errs}
	}
	out := &VAP{Policy: gp.Name}
	c := &vapCompiler{names: &celNames{}, schemas: schemas, match: &gp.Spec.Match}
	builds := map[v1alpha1.Enforcement]*vapBuild{}
	for i, r := range compiled.rules {
		kind := ruleKindOf(&gp.Spec.Rules[i])
		entry := VAPRule{Name: r.name, Kind: kind.name}
		c.enforcement = r.enforcement
		checks, err := compileRuleVAP(kind, r, gp, c)
		var webhook *needsWebhookError
		switch {
		case errors.As(err, &webhook):
			entry.Webhook = webhook.reason
			out.Rules = append(out.Rules, entry)
			continue
		case err != nil:
			return nil, fmt.Errorf("GuardPolicy %q, rule %s: %w", gp.Name, r.name, err)
		}
		out.Rules = append(out.Rules, entry)
		for _, check := range checks {
			enforcement := weaker(check.enforcement, r.enforcement)
			b := builds[enforcement]
			if b == nil {
				b = &vapBuild{}
				builds[enforcement] = b
			}
			if err := b.add(gp.Name, r, check); err != nil {
				return nil, fmt.Errorf("GuardPolicy %q, rule %s: %w", gp.Name, r.name, err)
			}
		}
	}
	for _, enforcement := range []v1alpha1.Enforcement{v1alpha1.Deny, v1alpha1.Warn, v1alpha1.Audit} {
		if b := builds[enforcement]; b != nil {
			vap, binding := b.objects(gp, enforcement, schemas)
			out.Policies = append(out.Policies, vap)
			out.Bindings = append(out.Bindings, binding)
		}
	}
	return out, nil
}

// compileRuleVAP asks the rule's kind for its validations, after what
// the policy itself keeps with the webhook.
func compileRuleVAP(kind ruleKind, r compiledRule, gp *v1alpha1.GuardPolicy, c *vapCompiler) ([]vapCheck, error) {
	if kind.vap == nil {
		return nil, needsWebhook("rule kind %s has no ValidatingAdmissionPolicy form", kind.name)
	}
	if _, ok := r.rule.(mutator); ok {
		return kind.vap(r.rule, c) // says why it cannot be compiled, approvers or not
	}
	if gp.Spec.Approvers != nil && r.enforcement == v1alpha1.Deny {
		// An approver lifts a Deny finding with crdguard.dev/approve, and
		// the mutating webhook strips the annotation so it approves one
		// request only. A ValidatingAdmissionPolicy can neither.
		return nil, needsWebhook("the policy has approvers: a Deny finding may be lifted once with %s, which needs the webhook", v1alpha1.ApproveAnnotation)
	}
	return kind.vap(r.rule, c)
}

func ruleKindOf(spec *v1alpha1.Rule) ruleKind {
	for _, k := range ruleKinds {
		if k.configured(spec) {
			return k
		}
	}
	panic("compiled rule without a kind") // compilePolicy admits exactly one
}

// vapBuild collects the validations of one enforcement.
type vapBuild struct {
	variables   []admissionregistrationv1.Variable
	validations []vapValidation
}

// vapValidation is a validation whose messageExpression depends on the
// policy's gate.
type vapValidation struct {
	admissionregistrationv1.Validation
	// failed is the message when the validation fails.
	failed string
	// usesVariables keeps the expression out of a gate: a match
	// condition has no variables.
	usesVariables bool
	// mayFail is a cel rule's expression, which may fail to evaluate. In
	// a gate with other rules its error would quote them all; alone, its
	// error is the validation's own.
	mayFail bool
}

// vapRequestNamespace is the request's namespace, "" for a cluster-scoped
// object, whose request leaves the field out.
const vapRequestNamespace = `(has(request.namespace) ? request.namespace : "")`

func (b *vapBuild) add(policy string, r compiledRule, check vapCheck) error {
	prefix := fmt.Sprintf("[%s/%s] ", policy, r.name)
	ops := make([]string, 0, 3)
	for _, op := range r.operations() {
		ops = append(ops, string(op))
	}
	guard := "request.operation in " + celStrings(ops)
	reason := metav1.StatusReasonInvalid
	if check.findings == "" {
		failed, err := celLowerBinds(celString(prefix) + " + " + check.messageExpression)
		if err != nil {
			return err
		}
		b.validations = append(b.validations, vapValidation{
			Validation: admissionregistrationv1.Validation{
				Expression: fmt.Sprintf("!(%s) || (%s)", guard, check.expression),
				Message:    prefix + check.message,
				Reason:     &reason,
			},
			failed:  failed,
			mayFail: true,
		})
		return nil
	}
	for _, h := range check.helpers {
		expression, err := celLowerBinds(h.Expression)
		if err != nil {
			return err
		}
		b.variables = append(b.variables, admissionregistrationv1.Variable{Name: h.Name, Expression: expression})
	}
	passes, inlined, err := vapPasses(check)
	if err != nil {
		return err
	}
	failed, err := celLowerBinds(fmt.Sprintf(`%s + (%s ? %s : []).join(%s)`, celString(prefix), guard, check.findings, celString(vapFindingSeparator)))
	if err != nil {
		return err
	}
	// The API server drops an evaluated message over 5 KiB for the static
	// one, which names the rule but no field: dozens of findings of one
	// rule in one request.
	b.validations = append(b.validations, vapValidation{
		Validation: admissionregistrationv1.Validation{
			Expression: fmt.Sprintf("!(%s) || (%s)", guard, passes),
			Message:    prefix + vapMessageFallbackText,
			Reason:     &reason,
		},
		failed:        failed,
		usesVariables: !inlined,
	})
	return nil
}

// maxInlined is the largest boolean form that reads the helpers where it
// uses them. Type-checking an expression takes time that grows faster
// than its size (about 10 ms at 2 KB, 0.1 s at 12 KB, 1 s at 32 KB),
// which kube-apiserver spends on each change of a policy.
const maxInlined = 8 << 10

// vapPasses is the boolean form of check's findings. It reads the helpers
// where it uses them, so that it builds no list of places, unless that
// makes it larger than maxInlined; then it uses the variables.
func vapPasses(check vapCheck) (passes string, inlined bool, err error) {
	form, expr := celNoFindings, check.findings
	if check.passes != "" {
		form, expr = celBoolean, check.passes
	}
	if passes, err = form(inlineHelpers(expr, check.helpers)); err != nil || len(passes) <= maxInlined {
		return passes, true, err
	}
	passes, err = form(expr)
	return passes, false, err
}

// inlineHelpers writes each helper in place of variables.<name> in expr.
func inlineHelpers(expr string, helpers []admissionregistrationv1.Variable) string {
	for i := len(helpers) - 1; i >= 0; i-- { // a helper uses only those before it
		expr = replaceIdent(expr, "variables."+helpers[i].Name, "("+helpers[i].Expression+")")
	}
	return expr
}

// maxGate is the largest gate written (see maxInlined).
const maxGate = 16 << 10

// gated builds the validations with a gate: a match condition that lets
// through only a request that fails a rule. The API server evaluates
// every validation and then every messageExpression; behind the gate a
// passing request, nearly every request, costs one evaluation of each
// rule instead of a validation and a message each. A policy with a
// validation that uses variables, with a cel rule among others, or whose
// gate would be larger than maxGate, has none: its messages test their
// validation again, so that only a failing request builds the findings.
func (b *vapBuild) gated() ([]admissionregistrationv1.Validation, *admissionregistrationv1.MatchCondition) {
	var passes []string
	size := 0
	for _, v := range b.validations {
		passes = append(passes, v.Expression)
		size += len(v.Expression)
		if v.usesVariables || v.mayFail && len(b.validations) > 1 || size > maxGate {
			passes = nil
			break
		}
	}
	out := make([]admissionregistrationv1.Validation, len(b.validations))
	for i, v := range b.validations {
		out[i] = v.Validation
		out[i].MessageExpression = v.failed
		if passes == nil {
			out[i].MessageExpression = fmt.Sprintf(`(%s) ? "" : %s`, v.Expression, v.failed)
		}
	}
	if passes == nil {
		return out, nil
	}
	return out, &admissionregistrationv1.MatchCondition{Name: vapGateCondition, Expression: "!((" + strings.Join(passes, ") && (") + "))"}
}

// VAPName is the name of the ValidatingAdmissionPolicy (and binding) that
// holds a GuardPolicy's rules of one enforcement.
func VAPName(policy string, enforcement v1alpha1.Enforcement) string {
	return "crdguard-" + policy + "-" + strings.ToLower(string(enforcement))
}

func (b *vapBuild) objects(gp *v1alpha1.GuardPolicy, enforcement v1alpha1.Enforcement, schemas *schema.Registry) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	name := VAPName(gp.Name, enforcement)
	meta := metav1.ObjectMeta{
		Name:        name,
		Labels:      map[string]string{VAPManagedByLabel: VAPManagedBy, VAPEnforcementLabel: string(enforcement)},
		Annotations: map[string]string{VAPPolicyAnnotation: gp.Name},
	}
	fail := admissionregistrationv1.Fail
	validations, gate := b.gated()
	constraints, conditions := vapMatch(&gp.Spec.Match, schemas)
	if gate != nil {
		conditions = append(conditions, *gate)
	}
	vap := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: *meta.DeepCopy(),
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    &fail,
			MatchConstraints: constraints,
			MatchConditions:  conditions,
			Variables:        b.variables,
			Validations:      validations,
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: meta,
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.ValidationAction(enforcement)},
		},
	}
	return vap, binding
}

// vapMatch is the policy's match as matchConstraints and matchConditions.
// The API server matches resources by plural, and a GuardPolicy names
// kinds: where the CRDs give every kind's plural, the resource rules name
// them, else a match condition on request.kind picks the kinds. Excluded
// namespaces are a namespace selector on kubernetes.io/metadata.name,
// which the API server sets on every namespace, unless the policy may
// match Namespace objects, which the selector matches by their own labels.
// A condition costs kube-apiserver microseconds on every request; a
// selector, a lookup.
func vapMatch(m *v1alpha1.Match, schemas *schema.Registry) (*admissionregistrationv1.MatchResources, []admissionregistrationv1.MatchCondition) {
	ops := m.Operations
	if len(ops) == 0 {
		ops = createUpdateDelete
	}
	var operations []admissionregistrationv1.OperationType
	for _, op := range ops {
		operations = append(operations, admissionregistrationv1.OperationType(op))
	}
	exact := admissionregistrationv1.Exact
	all := admissionregistrationv1.AllScopes
	out := &admissionregistrationv1.MatchResources{
		NamespaceSelector: m.NamespaceSelector,
		ObjectSelector:    m.ObjectSelector,
		// The engine matches the kind and version the request names, not
		// an equivalent one the server converts to.
		MatchPolicy: &exact,
	}
	byPlural := true
	for _, r := range m.Resources {
		versions := r.Versions
		if len(versions) == 0 || slices.Contains(versions, "*") {
			versions = []string{"*"}
		}
		resources := vapResourceNames(r, schemas)
		if resources == nil {
			resources, byPlural = []string{"*"}, false
		}
		out.ResourceRules = append(out.ResourceRules, admissionregistrationv1.NamedRuleWithOperations{
			RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: operations,
				Rule: admissionregistrationv1.Rule{
					APIGroups:   []string{r.Group},
					APIVersions: versions,
					Resources:   resources,
					Scope:       &all,
				},
			},
		})
	}
	var conditions []admissionregistrationv1.MatchCondition
	if !byPlural {
		conditions = append(conditions, vapKindCondition(m)...)
	}
	switch {
	case len(m.ExcludedNamespaces) == 0:
	case vapMayMatchNamespaces(m):
		conditions = append(conditions, admissionregistrationv1.MatchCondition{Name: "excluded-namespaces", Expression: "!(" + vapRequestNamespace + " in " + celStrings(m.ExcludedNamespaces) + ")"})
	default:
		sel := &metav1.LabelSelector{}
		if m.NamespaceSelector != nil {
			sel = m.NamespaceSelector.DeepCopy()
		}
		sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: m.ExcludedNamespaces})
		out.NamespaceSelector = sel
	}
	// The engine's namespace selector never matches a cluster-scoped
	// object; the API server's would.
	if sel, err := selector(m.NamespaceSelector); err == nil && !sel.Empty() {
		conditions = append(conditions, admissionregistrationv1.MatchCondition{Name: "namespaced", Expression: vapRequestNamespace + ` != ""`})
	}
	return out, conditions
}

// vapResourceNames are the plurals of r's kinds, nil unless the CRDs give
// every one.
func vapResourceNames(r v1alpha1.ResourceMatch, schemas *schema.Registry) []string {
	if r.Group == "*" || slices.Contains(r.Kinds, "*") {
		return nil
	}
	var out []string
	for _, kind := range r.Kinds {
		plural, ok := schemas.Resource(runtimeschema.GroupKind{Group: r.Group, Kind: kind})
		if !ok {
			return nil
		}
		out = append(out, plural)
	}
	return out
}

// vapMayMatchNamespaces tells whether the policy may match Namespace
// objects.
func vapMayMatchNamespaces(m *v1alpha1.Match) bool {
	for _, r := range m.Resources {
		if (r.Group == "" || r.Group == "*") && (slices.Contains(r.Kinds, "Namespace") || slices.Contains(r.Kinds, "*")) {
			return true
		}
	}
	return false
}

// vapKindCondition picks the policy's kinds: each resource entry pairs its
// group, versions and kinds, and a request must match one entry in all
// three.
func vapKindCondition(m *v1alpha1.Match) []admissionregistrationv1.MatchCondition {
	var entries []string
	for _, r := range m.Resources {
		var parts []string
		if r.Group != "*" {
			parts = append(parts, "request.kind.group == "+celString(r.Group))
		}
		if len(r.Versions) > 0 && !slices.Contains(r.Versions, "*") {
			parts = append(parts, "request.kind.version in "+celStrings(r.Versions))
		}
		if !slices.Contains(r.Kinds, "*") {
			parts = append(parts, "request.kind.kind in "+celStrings(r.Kinds))
		}
		if len(parts) == 0 {
			return nil // this entry matches every request the rules let through
		}
		entries = append(entries, "("+strings.Join(parts, " && ")+")")
	}
	if len(entries) == 0 {
		return nil
	}
	return []admissionregistrationv1.MatchCondition{{Name: "kinds", Expression: strings.Join(entries, " || ")}}
}

// VAPFinding is one finding read back from a compiled policy's message.
type VAPFinding struct {
	Policy, Rule string
	// Field is the field path, "<nil>" for the object itself.
	Field string
	// Message is the finding's message without the path, like the
	// engine's Violation.Message.
	Message string
}

// vapMessageRE reads "[policy/rule] findings"; vapFindingStartRE finds
// where each finding begins: its path, then the name of a field.ErrorType.
var (
	vapMessageRE      = regexp.MustCompile(`^\[([^/\]]+)/([^\]]+)\] (.*)$`)
	vapFindingStartRE = regexp.MustCompile(`(?:^|; )((?:<nil>|[^ ;]+): (?:Invalid value|Required value|Forbidden|Not found|Unsupported value|Duplicate value)\b)`)
)

// ParseVAPMessage reads the findings out of the message of a compiled
// validation: "[policy/rule] path: body; path: body". It is how tests and
// tools compare a ValidatingAdmissionPolicy's denials and warnings with the
// engine's violations. ok is false for a message of another form.
func ParseVAPMessage(msg string) (findings []VAPFinding, ok bool) {
	m := vapMessageRE.FindStringSubmatch(msg)
	if m == nil {
		return nil, false
	}
	policy, rule, rest := m[1], m[2], m[3]
	starts := vapFindingStartRE.FindAllStringSubmatchIndex(rest, -1)
	if len(starts) == 0 || starts[0][2] != 0 {
		return nil, false
	}
	for i, s := range starts {
		end := len(rest)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		one := rest[s[2]:end]
		path, body, _ := strings.Cut(one, ": ")
		findings = append(findings, VAPFinding{Policy: policy, Rule: rule, Field: path, Message: body})
	}
	return findings, true
}

// WebhookPolicy is gp without the rules its compiled form enforces: what
// the webhook still has to evaluate when the compiled policies are
// installed. It is nil when every rule compiled.
func (v *VAP) WebhookPolicy(gp *v1alpha1.GuardPolicy) *v1alpha1.GuardPolicy {
	keep := map[string]bool{}
	for _, r := range v.Rules {
		keep[r.Name] = r.Webhook != ""
	}
	out := gp.DeepCopy()
	out.Spec.Rules = slices.DeleteFunc(out.Spec.Rules, func(r v1alpha1.Rule) bool { return !keep[r.Name] })
	if len(out.Spec.Rules) == 0 {
		return nil
	}
	return out
}
