package vap

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
	"github.com/crdguard/crdguard/pkg/policies/vap/internal/celrewrite"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Labels and annotations on every generated object, so a cluster's
// compiled policies can be listed and traced to their GuardPolicy.
const (
	ManagedByLabel   = "app.kubernetes.io/managed-by"
	ManagedBy        = "crdguard"
	PolicyAnnotation = "crdguard.dev/policy"
	EnforcementLabel = "crdguard.dev/enforcement"
	findingSeparator = "; "
	gateCondition    = "fails-a-rule"
)

// Rule says where one rule of a GuardPolicy runs once compiled.
type Rule struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Webhook is why the rule stays with the webhook; "" when a
	// ValidatingAdmissionPolicy enforces it.
	Webhook string `json:"webhook,omitempty"`
	// Mutation is set for a defaults rule that compiled to a
	// MutatingAdmissionPolicy. The webhook keeps the rule as well: both
	// set the same limits, and a cluster without the compiled policy
	// still gets them.
	Mutation bool `json:"mutation,omitempty"`
	// Approvals is set when the webhook evaluates a compiled rule as well:
	// an approvable Deny rule of a policy with approvers, whose approvals
	// the mutating webhook records for the compiled policy to read, and
	// the validating webhook checks as it always does.
	Approvals bool `json:"approvals,omitempty"`
}

// Compiled is a GuardPolicy compiled to ValidatingAdmissionPolicies: one policy
// and one binding per enforcement its rules use, because a binding's
// validationActions apply to all of a policy's validations; and to one
// MutatingAdmissionPolicy for its defaults.
type Compiled struct {
	Policy   string
	Policies []*admissionregistrationv1.ValidatingAdmissionPolicy
	Bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	// Mutating holds the policy's defaults rules, nil when none compiled;
	// MutatingBinding binds it.
	Mutating        *admissionregistrationv1.MutatingAdmissionPolicy
	MutatingBinding *admissionregistrationv1.MutatingAdmissionPolicyBinding
	// Rules lists every rule in policy order, compiled or not: nothing is
	// dropped silently.
	Rules []Rule
}

// needsWebhookError is a rule, or part of one, that a
// ValidatingAdmissionPolicy cannot express.
type needsWebhookError struct{ reason string }

func (e *needsWebhookError) Error() string { return e.reason }

func needsWebhook(format string, args ...any) error {
	return &needsWebhookError{reason: fmt.Sprintf(format, args...)}
}

// ruleCEL is one validation of a compiled rule.
type ruleCEL struct {
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
	// check names the check within its rule, "" for a rule's only one:
	// the rule's and its name make the variable that lists its findings.
	check string
	// summary is the static message: the field and what is allowed. It is
	// the message with Summaries; with Findings, the API server prints it
	// when the findings are too long (over 5 KiB).
	summary string
	// gate, when set, is a test without variables that implies the check
	// passes, cheaper than its boolean form, for the policy's gate.
	gate string
	// lift, when set, is a CEL boolean that an approval lifts the check's
	// findings ("false" when the policy has no approvers), and notApproved
	// the CEL string the engine adds to each of them when an approval
	// names the rule but may not lift it.
	lift, notApproved string
	// helpers are variables the expressions use as variables.<name>. Each
	// expression is type-checked alone, and checking time grows faster
	// than an expression's size: large parts go into helpers.
	helpers []admissionregistrationv1.Variable
}

// compiler is what rule kinds may use while compiling to CEL.
type compiler struct {
	names *celNames
	// kinds are the kinds of the loaded CRDs the policy matches.
	kinds []runtimeschema.GroupVersionKind
	// enforcement is the rule's.
	enforcement v1alpha1.Enforcement
}

// Messages is what a compiled validation says when it fails. Either
// compiles the same rules, to policies of the same names and matches.
type Messages int

const (
	// Summaries are each check's static message: the rule, the field and
	// what is allowed. Each validation is its check's boolean form, and the
	// policies are about half the size of Findings'.
	Summaries Messages = iota
	// Findings are the engine's findings, each with its field path and
	// values. Every check is written twice, as a boolean that lets a passing
	// request through and as the list of its findings.
	Findings
)

// Compile compiles a GuardPolicy to ValidatingAdmissionPolicies and
// their bindings (admissionregistration.k8s.io/v1) that reach the
// engine's verdict on the requests the policy matches, with messages as
// chosen, and its defaults rules to a MutatingAdmissionPolicy. Rules that
// need the webhook are listed in Compiled.Rules with the reason. schemas
// may be nil; transitions that match list items by the CRD's list-map
// keys need it.
func Compile(gp *v1alpha1.GuardPolicy, schemas *schema.Registry, messages Messages) (*Compiled, error) {
	compiled, errs := rules.CompilePolicy(gp, schemas)
	if len(errs) > 0 {
		return nil, &policies.InvalidPolicyError{Name: gp.Name, Errs: errs}
	}
	out := &Compiled{Policy: gp.Name}
	c := &compiler{names: &celNames{}, kinds: compiled.Kinds}
	builds := map[v1alpha1.Enforcement]*policyBuilder{}
	mutations := &mutationBuilder{}
	for i, r := range compiled.Rules {
		kind := rules.KindOf(&gp.Spec.Rules[i])
		entry := Rule{Name: r.Name, Kind: kind}
		c.enforcement = r.Enforcement
		if compilation := kindCompilations[kind]; compilation.mutate != nil {
			var webhook *needsWebhookError
			switch err := compilation.mutate(mutations, r.Rule, c); {
			case errors.As(err, &webhook):
				entry.Webhook = webhook.reason
			case err != nil:
				return nil, fmt.Errorf("GuardPolicy %q, rule %s: %w", gp.Name, r.Name, err)
			default:
				entry.Mutation = true
			}
			out.Rules = append(out.Rules, entry)
			continue
		}
		checks, err := compileRule(kind, r, gp, c)
		var webhook *needsWebhookError
		switch {
		case errors.As(err, &webhook):
			entry.Webhook = webhook.reason
			out.Rules = append(out.Rules, entry)
			continue
		case err != nil:
			return nil, fmt.Errorf("GuardPolicy %q, rule %s: %w", gp.Name, r.Name, err)
		}
		entry.Approvals = rules.HasApprovers(gp.Spec.Approvers) && r.Enforcement == v1alpha1.Deny
		out.Rules = append(out.Rules, entry)
		// Without approvers, writing an approval is still refused, and a
		// finding it names says so, as in the engine.
		checks = withApprovals(approvalCEL{policy: gp.Name, approvers: gp.Spec.Approvers}, r, checks)
		for _, check := range checks {
			enforcement := rules.Weaker(check.enforcement, r.Enforcement)
			b := builds[enforcement]
			if b == nil {
				b = &policyBuilder{messages: messages}
				builds[enforcement] = b
			}
			if err := b.add(gp.Name, r, check); err != nil {
				return nil, fmt.Errorf("GuardPolicy %q, rule %s: %w", gp.Name, r.Name, err)
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
	out.Mutating, out.MutatingBinding = mutations.objects(gp, schemas)
	return out, nil
}

// compileRule is a rule's CEL form, or why it stays with the webhook: a
// Deny rule of a policy with approvers that runs on DELETE is approved
// with a stored record, and a kind registered as webhookOnly needs the
// engine. Kinds that mutate compile apart (see mutationBuilder).
func compileRule(kind string, r rules.Compiled, gp *v1alpha1.GuardPolicy, c *compiler) ([]ruleCEL, error) {
	if rules.HasApprovers(gp.Spec.Approvers) && r.Enforcement == v1alpha1.Deny && slices.Contains(r.Operations(), v1alpha1.Delete) {
		// A DELETE has no new object to write an approval in: it may use
		// the stored one, with the record the mutating webhook wrote, and
		// only the webhook keeps that record honest.
		return nil, needsWebhook("the policy has approvers and the rule runs on DELETE: a deletion is approved with the stored %s and its %s record, which needs the webhook", v1alpha1.ApproveAnnotation, v1alpha1.LastApprovalAnnotation)
	}
	compilation, ok := kindCompilations[kind]
	switch {
	case !ok:
		// Fail closed: a kind vap does not know is a missing line in
		// kindCompilations, not a rule the webhook silently keeps.
		return nil, fmt.Errorf("rule kind %q has no entry in vap's kindCompilations", kind)
	case compilation.webhookOnly != "":
		return nil, needsWebhook("%s", compilation.webhookOnly)
	case compilation.validate == nil:
		return nil, fmt.Errorf("rule kind %q does not compile to ValidatingAdmissionPolicy checks", kind)
	}
	return compilation.validate(r.Rule, c)
}

// withApprovals adds a policy's approvals to a rule's checks: an approval
// lifts the Deny findings of the rule it names, and a check of its own
// denies writing one, or a record of one, to anyone the webhook would.
func withApprovals(a approvalCEL, r rules.Compiled, checks []ruleCEL) []ruleCEL {
	out := make([]ruleCEL, 0, len(checks)+1)
	lift := a.liftVariable(r.Name)
	// A rule that runs on DELETE has no approvals here: on a policy with
	// approvers it stays with the webhook, and on one without, nobody
	// may lift it.
	approvable := !slices.Contains(r.Operations(), v1alpha1.Delete)
	for _, check := range checks {
		if approvable && rules.Weaker(check.enforcement, r.Enforcement) == v1alpha1.Deny && check.findings != "" {
			// The approval's variables go first: a variable reads only
			// those before it.
			notApproved := a.notApprovedVariable(r.Name)
			helpers := append(a.shared(), notApproved)
			check.lift, check.notApproved = "false", "variables."+notApproved.Name
			if rules.HasApprovers(a.approvers) {
				check.lift = "variables." + lift.Name
				helpers = append(helpers, lift)
			}
			check.helpers = append(helpers, check.helpers...)
		}
		out = append(out, check)
	}
	return append(out, ruleCEL{
		findings: a.writeFindings(r.Name),
		gate:     nothingWritten,
		check:    "approval",
		summary:  approvalSummary(a.policy, r.Name),
		helpers:  a.shared(),
	})
}

// policyBuilder collects the validations of one enforcement.
type policyBuilder struct {
	messages    Messages
	variables   []admissionregistrationv1.Variable
	validations []validation
}

// hasVariable tells whether the policy has a variable of that name.
func (b *policyBuilder) hasVariable(name string) bool {
	return slices.ContainsFunc(b.variables, func(v admissionregistrationv1.Variable) bool { return v.Name == name })
}

// validation is a validation whose messageExpression depends on the
// policy's gate.
type validation struct {
	admissionregistrationv1.Validation
	// failed is the message when the validation fails.
	failed string
	// findings names the variable that lists the check's findings, "" for
	// a cel rule, which keeps its own expression.
	findings string
	// gate is a test without variables (a match condition has none) that
	// implies the validation passes; "" keeps the policy from a gate.
	gate string
	// gateNeverFails is a gate that cannot fail to evaluate, which a cel
	// rule's error may quote.
	gateNeverFails bool
	// mayFail is a cel rule's expression, which may fail to evaluate. In
	// a gate with other rules its error would quote them all; alone, its
	// error is the validation's own.
	mayFail bool
}

// requestNamespace is the request's namespace, "" for a cluster-scoped
// object, whose request leaves the field out.
const requestNamespace = `(has(request.namespace) ? request.namespace : "")`

func (b *policyBuilder) add(policy string, r rules.Compiled, check ruleCEL) error {
	prefix := fmt.Sprintf("[%s/%s] ", policy, r.Name)
	ops := make([]string, 0, 3)
	for _, op := range r.Operations() {
		ops = append(ops, string(op))
	}
	guard := "request.operation in " + celStrings(ops)
	reason := metav1.StatusReasonInvalid
	if check.findings == "" {
		failed, err := celrewrite.LowerBinds(celString(prefix) + " + " + check.messageExpression)
		if err != nil {
			return err
		}
		b.validations = append(b.validations, validation{
			Validation: admissionregistrationv1.Validation{
				Expression: fmt.Sprintf("!(%s) || (%s)", guard, check.expression),
				Message:    prefix + check.message,
				Reason:     &reason,
			},
			failed:  failed,
			gate:    fmt.Sprintf("!(%s) || (%s)", guard, check.expression),
			mayFail: true,
		})
		return nil
	}
	for _, h := range check.helpers {
		if b.hasVariable(h.Name) {
			continue // shared by the checks of several rules
		}
		expression, err := celrewrite.LowerBinds(h.Expression)
		if err != nil {
			return err
		}
		b.variables = append(b.variables, admissionregistrationv1.Variable{Name: h.Name, Expression: expression})
	}
	if b.messages == Summaries {
		return b.addSummarized(prefix+check.summary, guard, check)
	}
	// One named variable per check holds its findings: its validation and
	// message read them by name, and a reviewer finds each check once.
	name := b.variableName(r.Name, check.check)
	v := validation{
		Validation: admissionregistrationv1.Validation{
			Message: prefix + check.summary,
			Reason:  &reason,
		},
		findings: name,
		failed:   fmt.Sprintf(`%s + variables.%s.join(%s)`, celString(prefix), name, celString(findingSeparator)),
	}
	all := check.findings
	switch {
	case check.gate != "":
		v.Expression = fmt.Sprintf("size(variables.%s) == 0", name)
		// Such a test holds for any operation, so the gate writes it once
		// for all the rules that share it.
		v.gate = check.gate
		v.gateNeverFails = true
	default:
		passes, inlined, err := passesForm(check)
		if err != nil {
			return err
		}
		v.Expression = fmt.Sprintf("!(%s) || (%s)", guard, passes)
		if inlined {
			v.gate = v.Expression
		}
		switch check.lift {
		case "":
		case "false":
			all = fmt.Sprintf("(%s).map(f, f + %s)", all, check.notApproved)
		default:
			// The gate lets through whatever fails, approved or not: the
			// validation reads the approval only then.
			v.Expression = fmt.Sprintf("!(%s) || %s || (%s)", guard, check.lift, passes)
			all = fmt.Sprintf("(%s ? [] : (%s).map(f, f + %s))", check.lift, all, check.notApproved)
		}
	}
	findings, err := celrewrite.LowerBinds(fmt.Sprintf("(%s) ? %s : []", guard, all))
	if err != nil {
		return err
	}
	b.variables = append(b.variables, admissionregistrationv1.Variable{Name: name, Expression: findings})
	b.validations = append(b.validations, v)
	return nil
}

// addSummarized adds check as one validation: its boolean form, with the
// static message that names it. Its helpers stay variables where the form
// does not write them out. The validation reads an approval only when the
// check fails. The message names the check: a variable per check would
// too, but kube-apiserver spends microseconds on each variable it reads.
func (b *policyBuilder) addSummarized(message, guard string, check ruleCEL) error {
	var passes string
	var err error
	if check.gate != "" {
		// The gate's test first: it holds on nearly every request, and
		// the check's own form reads the approval's variables.
		passes, err = celrewrite.NoFindings(check.findings)
		passes = fmt.Sprintf("%s || (%s)", check.gate, passes)
	} else {
		passes, _, err = passesForm(check)
	}
	if err != nil {
		return err
	}
	reason := metav1.StatusReasonInvalid
	expression := fmt.Sprintf("!(%s) || (%s)", guard, passes)
	if check.lift != "" && check.lift != "false" {
		expression += " || " + check.lift
	}
	b.validations = append(b.validations, validation{Validation: admissionregistrationv1.Validation{Expression: expression, Message: message, Reason: &reason}})
	return nil
}

// variableName is the CEL identifier of a check's variable: the rule's
// name and the check's, in lower case with "_" between words, numbered
// when two would be the same.
func (b *policyBuilder) variableName(rule, check string) string {
	name := celIdentifier(rule)
	if check != "" {
		name += "_" + celIdentifier(check)
	}
	unique := name
	for i := 2; b.hasVariable(unique); i++ {
		unique = fmt.Sprintf("%s_%d", name, i)
	}
	return unique
}

// maxInlined is the largest boolean form that reads the helpers where it
// uses them. Type-checking an expression takes time that grows faster
// than its size (about 10 ms at 2 KB, 0.1 s at 12 KB, 1 s at 32 KB),
// which kube-apiserver spends on each change of a policy.
const maxInlined = 8 << 10

// passesForm is the boolean form of check's findings. It reads the helpers
// where it uses them, so that it builds no list of places, unless that
// makes it larger than maxInlined; then it uses the variables.
func passesForm(check ruleCEL) (passes string, inlined bool, err error) {
	form, expr := celrewrite.NoFindings, check.findings
	if check.passes != "" {
		form, expr = celrewrite.Boolean, check.passes
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
// rule's boolean form, and a failing one reads each check's findings from
// its variable. A policy with a boolean form that uses variables, with a
// cel rule among other checks (approval checks aside: their gates cannot
// fail), or whose gate would be larger than maxGate, has none: its
// validations are the boolean forms, and its messages test their
// validation again, so that only a failing request builds the findings.
// With Summaries, no message needs findings, and a policy has no gate.
func (b *policyBuilder) gated() ([]admissionregistrationv1.Validation, *admissionregistrationv1.MatchCondition) {
	if b.messages == Summaries {
		return b.ungated(), nil
	}
	var passes []string
	// quoted are the checks a cel rule's evaluation error would quote.
	size, quoted := 0, 0
	for _, v := range b.validations {
		if !v.gateNeverFails {
			quoted++
		}
	}
	for _, v := range b.validations {
		if v.gate == "" || v.mayFail && quoted > 1 || size+len(v.gate) > maxGate {
			passes = nil
			break
		}
		if !slices.Contains(passes, v.gate) {
			passes = append(passes, v.gate)
			size += len(v.gate)
		}
	}
	if passes == nil {
		return b.ungated(), nil
	}
	out := make([]admissionregistrationv1.Validation, len(b.validations))
	for i, v := range b.validations {
		out[i] = v.Validation
		out[i].MessageExpression = v.failed
		if v.findings != "" {
			// The gate holds the boolean form: written once more here
			// it would double the policy's size.
			out[i].Expression = fmt.Sprintf("size(variables.%s) == 0", v.findings)
		}
	}
	return out, &admissionregistrationv1.MatchCondition{Name: gateCondition, Expression: "!((" + strings.Join(passes, ") && (") + "))"}
}

// ungated are the validations of a policy without a gate: a message
// expression tests its validation again, so that only a failing request
// evaluates it.
func (b *policyBuilder) ungated() []admissionregistrationv1.Validation {
	out := make([]admissionregistrationv1.Validation, len(b.validations))
	for i, v := range b.validations {
		out[i] = v.Validation
		if v.failed != "" {
			out[i].MessageExpression = fmt.Sprintf(`(%s) ? "" : %s`, v.Expression, v.failed)
		}
	}
	return out
}

// usedVariables are the variables that the validations read, directly or
// through other variables: a check's helpers that its boolean form inlines
// are left out.
func usedVariables(variables []admissionregistrationv1.Variable, validations []admissionregistrationv1.Validation) []admissionregistrationv1.Variable {
	var readers []string
	for _, v := range validations {
		readers = append(readers, v.Expression, v.MessageExpression)
	}
	used := make([]bool, len(variables))
	// A variable reads only those before it.
	for i := len(variables) - 1; i >= 0; i-- {
		ident := "variables." + variables[i].Name
		reads := func(expr string) bool { return replaceIdent(expr, ident, "") != expr }
		used[i] = slices.ContainsFunc(readers, reads)
		if used[i] {
			readers = append(readers, variables[i].Expression)
		}
	}
	out := make([]admissionregistrationv1.Variable, 0, len(variables))
	for i, v := range variables {
		if used[i] {
			out = append(out, v)
		}
	}
	return out
}

// Name is the name of the ValidatingAdmissionPolicy (and binding) that
// holds a GuardPolicy's rules of one enforcement.
func Name(policy string, enforcement v1alpha1.Enforcement) string {
	return "crdguard-" + policy + "-" + strings.ToLower(string(enforcement))
}

func (b *policyBuilder) objects(gp *v1alpha1.GuardPolicy, enforcement v1alpha1.Enforcement, schemas *schema.Registry) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	name := Name(gp.Name, enforcement)
	meta := generatedMeta(name, gp.Name)
	meta.Labels[EnforcementLabel] = string(enforcement)
	fail := admissionregistrationv1.Fail
	validations, gate := b.gated()
	constraints, conditions := matchResources(&gp.Spec.Match, schemas)
	if gate != nil {
		conditions = append(conditions, *gate)
	}
	vap := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   typeMeta("ValidatingAdmissionPolicy"),
		ObjectMeta: *meta.DeepCopy(),
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    &fail,
			MatchConstraints: constraints,
			MatchConditions:  conditions,
			Variables:        usedVariables(b.variables, validations),
			Validations:      validations,
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   typeMeta("ValidatingAdmissionPolicyBinding"),
		ObjectMeta: meta,
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.ValidationAction(enforcement)},
		},
	}
	return vap, binding
}

// typeMeta is the TypeMeta of an admissionregistration.k8s.io/v1 kind.
func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: kind}
}

// generatedMeta is the metadata of an object generated from a GuardPolicy.
func generatedMeta(name, policy string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:        name,
		Labels:      map[string]string{ManagedByLabel: ManagedBy},
		Annotations: map[string]string{PolicyAnnotation: policy},
	}
}

// matchResources is the policy's match as matchConstraints and matchConditions.
// The API server matches resources by plural, and a GuardPolicy names
// kinds: where the CRDs give every kind's plural, the resource rules name
// them, else a match condition on request.kind picks the kinds. Excluded
// namespaces are a namespace selector on kubernetes.io/metadata.name,
// which the API server sets on every namespace, unless the policy may
// match Namespace objects, which the selector matches by their own labels.
// A condition costs kube-apiserver microseconds on every request; a
// selector, a lookup.
func matchResources(m *v1alpha1.Match, schemas *schema.Registry) (*admissionregistrationv1.MatchResources, []admissionregistrationv1.MatchCondition) {
	ops := m.Operations
	if len(ops) == 0 {
		ops = rules.CreateUpdateDelete
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
		resources := resourceNames(r, schemas)
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
		conditions = append(conditions, kindCondition(m)...)
	}
	switch {
	case len(m.ExcludedNamespaces) == 0:
	case mayMatchNamespaces(m):
		conditions = append(conditions, admissionregistrationv1.MatchCondition{Name: "excluded-namespaces", Expression: "!(" + requestNamespace + " in " + celStrings(m.ExcludedNamespaces) + ")"})
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
	if sel, err := rules.Selector(m.NamespaceSelector); err == nil && !sel.Empty() {
		conditions = append(conditions, admissionregistrationv1.MatchCondition{Name: "namespaced", Expression: requestNamespace + ` != ""`})
	}
	return out, conditions
}

// resourceNames are the plurals of r's kinds, nil unless the CRDs give
// every one.
func resourceNames(r v1alpha1.ResourceMatch, schemas *schema.Registry) []string {
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

// mayMatchNamespaces tells whether the policy may match Namespace
// objects.
func mayMatchNamespaces(m *v1alpha1.Match) bool {
	for _, r := range m.Resources {
		if (r.Group == "" || r.Group == "*") && (slices.Contains(r.Kinds, "Namespace") || slices.Contains(r.Kinds, "*")) {
			return true
		}
	}
	return false
}

// kindCondition picks the policy's kinds: each resource entry pairs its
// group, versions and kinds, and a request must match one entry in all
// three.
func kindCondition(m *v1alpha1.Match) []admissionregistrationv1.MatchCondition {
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

// WebhookPolicy is gp without the rules its compiled form enforces alone:
// what the webhook still has to evaluate when the compiled policies are
// installed, including the rules whose approvals it records and its
// defaults. It is nil when every rule compiled and none takes approvals or
// sets defaults.
func (v *Compiled) WebhookPolicy(gp *v1alpha1.GuardPolicy) *v1alpha1.GuardPolicy {
	keep := map[string]bool{}
	for _, r := range v.Rules {
		keep[r.Name] = r.Webhook != "" || r.Approvals || r.Mutation
	}
	out := gp.DeepCopy()
	out.Spec.Rules = slices.DeleteFunc(out.Spec.Rules, func(r v1alpha1.Rule) bool { return !keep[r.Name] })
	if len(out.Spec.Rules) == 0 {
		return nil
	}
	return out
}
