package vap

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/internal/vapmessage"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/schema"
)

// This file runs compiled ValidatingAdmissionPolicies in-process with the
// API server's own code: expressions are compiled as kube-apiserver
// validates a new policy (NewExpressions, the default compatibility
// version, strict cost) and evaluated by the validating admission policy
// plugin's Validator, as at admission (StoredExpressions).

// vapOutcome is what the compiled policies said about one request.
type vapOutcome struct {
	findings []enforcedFinding
	// errors are validations that failed to evaluate; failurePolicy Fail
	// makes them denials with the server's message.
	errors []string
}

type enforcedFinding struct {
	vapmessage.Finding
	enforcement string
}

func (f enforcedFinding) String() string {
	return fmt.Sprintf("%s [%s/%s] %s: %s", f.Field, f.Policy, f.Rule, f.enforcement, f.Message)
}

// checkVAPCompiles compiles every expression of vap as kube-apiserver
// does when the policy is created, and fails the test on any error.
func checkVAPCompiles(t testing.TB, vap *admissionregistrationv1.ValidatingAdmissionPolicy) {
	t.Helper()
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	for _, v := range vap.Spec.Variables {
		res := compiler.CompileAndStoreVariable(&validating.Variable{Name: v.Name, Expression: v.Expression}, opts, environment.NewExpressions)
		if res.Error != nil {
			t.Fatalf("%s: variable %s does not compile: %v\n%s", vap.Name, v.Name, res.Error, v.Expression)
		}
	}
	for i, v := range vap.Spec.Validations {
		if res := compiler.CompileCELExpression(&validating.ValidationCondition{Expression: v.Expression}, opts, environment.NewExpressions); res.Error != nil {
			t.Fatalf("%s: validations[%d].expression does not compile: %v\n%s", vap.Name, i, res.Error, v.Expression)
		}
		if v.MessageExpression == "" {
			continue
		}
		if res := compiler.CompileCELExpression(&validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}, plugincel.OptionalVariableDeclarations{}, environment.NewExpressions); res.Error != nil {
			t.Fatalf("%s: validations[%d].messageExpression does not compile: %v\n%s", vap.Name, i, res.Error, v.MessageExpression)
		}
	}
	// Match conditions are evaluated before the variables: kube-apiserver
	// compiles them without.
	matchCompiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range vap.Spec.MatchConditions {
		if res := matchCompiler.CompileCELExpression((*matchconditions.MatchCondition)(&m), opts, environment.NewExpressions); res.Error != nil {
			t.Fatalf("%s: matchConditions[%d] does not compile: %v", vap.Name, i, res.Error)
		}
	}
}

// compileVAPValidations compiles vap's variables and validations as the
// plugin does for a stored policy (validating.compilePolicy, which is not
// exported), and returns the compiler, which holds the variables, for
// the rest of the policy.
func compileVAPValidations(t testing.TB, vap *admissionregistrationv1.ValidatingAdmissionPolicy) (*plugincel.CompositedCompiler, plugincel.ConditionEvaluator) {
	t.Helper()
	opts := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	vars := make([]plugincel.NamedExpressionAccessor, len(vap.Spec.Variables))
	for i, v := range vap.Spec.Variables {
		vars[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	compiler.CompileAndStoreVariables(vars, opts, environment.StoredExpressions)
	validations := make([]plugincel.ExpressionAccessor, len(vap.Spec.Validations))
	for i, v := range vap.Spec.Validations {
		validations[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
	}
	return compiler, compiler.CompileCondition(validations, opts, environment.StoredExpressions)
}

// newVAPValidator builds the Validator the plugin builds for a policy
// (validating.compilePolicy).
func newVAPValidator(t testing.TB, vap *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	t.Helper()
	compiler, validations := compileVAPValidations(t, vap)
	opts := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	var matcher matchconditions.Matcher
	if len(vap.Spec.MatchConditions) > 0 {
		conds := make([]plugincel.ExpressionAccessor, len(vap.Spec.MatchConditions))
		for i := range vap.Spec.MatchConditions {
			conds[i] = (*matchconditions.MatchCondition)(&vap.Spec.MatchConditions[i])
		}
		matcher = matchconditions.NewMatcher(compiler.CompileCondition(conds, opts, environment.StoredExpressions), vap.Spec.FailurePolicy, "policy", "validate", vap.Name)
	}
	messages := make([]plugincel.ExpressionAccessor, len(vap.Spec.Validations))
	for i, v := range vap.Spec.Validations {
		if v.MessageExpression != "" {
			messages[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	return validating.NewValidator(
		validations,
		matcher,
		compiler.CompileCondition(nil, opts, environment.StoredExpressions),
		compiler.CompileCondition(messages, plugincel.OptionalVariableDeclarations{}, environment.StoredExpressions),
		vap.Spec.FailurePolicy,
		nil,
	)
}

// vapRunner holds the Validators of a compiled policy, built once.
type vapRunner struct {
	compiled   *Compiled
	validators []validating.Validator
}

// newVAPRunner checks that every expression compiles as kube-apiserver
// compiles a new policy and builds the plugin's Validators.
func newVAPRunner(t testing.TB, compiled *Compiled) *vapRunner {
	t.Helper()
	r := &vapRunner{compiled: compiled}
	for _, vap := range compiled.Policies {
		checkVAPCompiles(t, vap)
		r.validators = append(r.validators, newVAPValidator(t, vap))
	}
	return r
}

// evaluateVAP runs the compiled policies on req.
func evaluateVAP(t *testing.T, ctx context.Context, compiled *Compiled, req *policies.Request) vapOutcome {
	t.Helper()
	return newVAPRunner(t, compiled).run(t, ctx, req)
}

// admissionAttributes are req as the admission plugins see it, with the
// resource named after its kind.
func admissionAttributes(req *policies.Request) (runtimeschema.GroupVersionResource, *admission.VersionedAttributes) {
	subject := requestSubject(req)
	gvk := subject.GroupVersionKind()
	gvr := gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind) + "s")
	var obj, old runtime.Object
	if req.Object != nil {
		obj = req.Object
	}
	if req.OldObject != nil {
		old = req.OldObject
	}
	attr := admission.NewAttributesRecord(obj, old, gvk, req.Namespace, subject.GetName(), gvr, "", admission.Operation(req.Operation), nil, req.DryRun,
		&user.DefaultInfo{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups})
	return gvr, &admission.VersionedAttributes{Attributes: attr, VersionedKind: gvk, VersionedObject: admission.NewLazyObject(obj), VersionedOldObject: admission.NewLazyObject(old)}
}

func (r *vapRunner) run(t testing.TB, ctx context.Context, req *policies.Request) vapOutcome {
	t.Helper()
	gvr, versioned := admissionAttributes(req)

	var out vapOutcome
	for i, vap := range r.compiled.Policies {
		enforcement := string(r.compiled.Bindings[i].Spec.ValidationActions[0])
		res := r.validators[i].Validate(ctx, gvr, versioned, nil, nil, celconfig.RuntimeCELCostBudget, nil)
		for _, d := range res.Decisions {
			switch d.Evaluation {
			case validating.EvalDeny:
				findings, ok := vapmessage.Parse(d.Message)
				if !ok {
					t.Fatalf("%s: message not in the compiled form: %q", vap.Name, d.Message)
				}
				for _, f := range findings {
					out.findings = append(out.findings, enforcedFinding{Finding: f, enforcement: enforcement})
				}
			case validating.EvalError:
				out.errors = append(out.errors, d.Message)
			}
		}
	}
	return out
}

// engineFindings are the violations of res from the rules that compiled,
// in the form evaluateVAP returns.
func engineFindings(res policies.Result, compiled *Compiled) []enforcedFinding {
	inVAP := map[string]bool{}
	for _, r := range compiled.Rules {
		inVAP[r.Name] = r.Webhook == ""
	}
	// An approved Deny finding is an audit annotation of the webhook's; a
	// compiled policy lifts it and says nothing (the request, with the
	// approval and who wrote it, is in the audit log).
	approved := map[string]bool{}
	if res.Approval != nil && res.Approval.Lifted {
		for _, r := range res.Approval.Rules {
			approved[r] = true
		}
	}
	var out []enforcedFinding
	for _, v := range res.Violations {
		if v.Policy != compiled.Policy || !inVAP[v.Rule] || v.Enforcement == v1alpha1.Audit && approved[v.Policy+"/"+v.Rule] {
			continue
		}
		out = append(out, enforcedFinding{Finding: vapmessage.Finding{Policy: v.Policy, Rule: v.Rule, Field: v.Field, Message: v.Message}, enforcement: string(v.Enforcement)})
	}
	return out
}

func sortedStrings[T fmt.Stringer](items []T) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.String()
	}
	slices.Sort(out)
	return out
}

// TestVAPRuntimeCost measures, with the API server's cost tracking, what
// the compiled validations of the largest golden cases spend of the
// runtime CEL budget a binding gets per request; a compiled policy must
// leave nearly all of it (at most 1%), since the API server stops at the
// budget and failurePolicy Fail then denies.
func TestVAPRuntimeCost(t *testing.T) {
	for _, dir := range []string{"resources/ratio-boundaries", "resources/any-of-node-sets", "resources/exclude-containers", "imageVersion/workload-sidecar-excluded", "transitions/list-default-name-key", "transitions/no-removal-map-and-set"} {
		t.Run(dir, func(t *testing.T) {
			c := loadVAPCase(t, filepath.Join(goldenCases, dir))
			var vaps []*admissionregistrationv1.ValidatingAdmissionPolicy
			for _, form := range messageForms {
				compiled, err := Compile(c.policies[0], c.schemas, form.messages)
				if err != nil {
					t.Fatal(err)
				}
				if len(compiled.Policies) == 0 {
					t.Fatal("nothing compiled")
				}
				vaps = append(vaps, compiled.Policies...)
			}
			gvr, versioned := admissionAttributes(&c.req)
			request := plugincel.CreateAdmissionRequest(versioned.Attributes, metav1.GroupVersionResource(gvr), metav1.GroupVersionKind(versioned.VersionedKind))
			for _, vap := range vaps {
				_, validations := compileVAPValidations(t, vap)
				_, remaining, err := validations.ForInput(t.Context(), versioned, request, plugincel.OptionalVariableBindings{}, nil, celconfig.RuntimeCELCostBudget)
				if err != nil {
					t.Fatal(err)
				}
				cost := celconfig.RuntimeCELCostBudget - remaining
				t.Logf("%s: runtime cost %d of %d", vap.Name, cost, celconfig.RuntimeCELCostBudget)
				if cost <= 0 || cost > celconfig.RuntimeCELCostBudget/100 {
					t.Errorf("%s: runtime cost %d, want more than 0 and at most 1%% of %d", vap.Name, cost, celconfig.RuntimeCELCostBudget)
				}
			}
		})
	}
}

// messageForms are the compiled messages, named as crdguard vap --messages
// names them.
var messageForms = []struct {
	name     string
	messages Messages
}{{"summary", Summaries}, {"findings", Findings}}

// compileExample compiles the GuardPolicy in dir/policy.yaml, without its
// approvers (with them the example's deletion rule stays with the
// webhook), against the example's CRD.
func compileExample(t testing.TB, dir string, messages Messages) *Compiled {
	t.Helper()
	schemas, err := schema.RegistryFromFiles(t.Context(), example+"/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gps, err := policies.PoliciesFromDocuments(t.Context(), goldencase.Documents(t, filepath.Join(dir, "policy.yaml")), schemas)
	if err != nil {
		t.Fatal(err)
	}
	gps[0].Spec.Approvers = nil
	compiled, err := Compile(gps[0], schemas, messages)
	if err != nil {
		t.Fatal(err)
	}
	return compiled
}

// BenchmarkCompiledVAP is the example GuardPolicy, without its approvers,
// compiled to ValidatingAdmissionPolicies and run by the API server's
// validating admission policy plugin on a CREATE of the example cluster:
// what kube-apiserver spends on it per request, next to BenchmarkEvaluate,
// with either messages.
func BenchmarkCompiledVAP(b *testing.B) {
	for _, form := range messageForms {
		runner := newVAPRunner(b, compileExample(b, example, form.messages))
		for _, name := range []string{"good", "bad"} {
			b.Run(form.name+"/"+name, func(b *testing.B) {
				req := policies.Request{Operation: v1alpha1.Create, Namespace: "shop", Object: goldencase.Documents(b, example+"/"+name+".yaml")[0].Object}
				if out := runner.run(b, b.Context(), &req); len(out.errors) > 0 || (name == "good") != (len(out.findings) == 0) {
					b.Fatalf("%s: findings %v, errors %v", name, out.findings, out.errors)
				}
				b.ReportAllocs()
				for b.Loop() {
					runner.run(b, b.Context(), &req)
				}
			})
		}
	}
}
