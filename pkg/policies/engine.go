package policies

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/warning"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema"
)

// SchemaPolicy is the Policy of findings from CRD schema validation.
const SchemaPolicy = "schema"

// InvalidPolicyError is a GuardPolicy that cannot be compiled.
type InvalidPolicyError struct {
	Name string
	Errs field.ErrorList
}

func (e *InvalidPolicyError) Error() string {
	return fmt.Sprintf("GuardPolicy %q is invalid: %v", e.Name, e.Errs.ToAggregate())
}

// ValidateGuardPolicy returns what is wrong with a policy beyond its
// schema: paths that do not parse, CEL that does not compile, selectors,
// approvers and bounds that make no sense. schemas may be nil.
func ValidateGuardPolicy(p *v1alpha1.GuardPolicy, schemas *schema.Registry) field.ErrorList {
	_, errs := rules.CompilePolicy(p, schemas)
	return errs
}

// policy is a compiled GuardPolicy, matched to requests by match.go.
type policy struct{ *rules.Policy }

// Engine evaluates requests against CRD schemas and GuardPolicies. It is
// immutable and safe for concurrent use; build a new one when policies or
// CRDs change.
type Engine struct {
	schemas  *schema.Registry
	policies []*policy
	// kinds are the kinds the policies name and the CRDs define.
	kinds map[string]bool
}

// NewEngine compiles the policies. schemas may be nil: then only policies
// are evaluated. A policy that does not compile is an *InvalidPolicyError.
func NewEngine(schemas *schema.Registry, guardPolicies ...*v1alpha1.GuardPolicy) (*Engine, error) {
	e := &Engine{schemas: schemas}
	// One compiler for all: policies share the rules they have in common.
	compiler := rules.NewCompiler(schemas)
	for _, gp := range guardPolicies {
		p, errs := compiler.Compile(gp)
		if len(errs) > 0 {
			return nil, &InvalidPolicyError{Name: gp.Name, Errs: errs}
		}
		e.policies = append(e.policies, &policy{p})
	}
	// Policies run in name order, so findings come out in the same order
	// whatever order the policies were loaded in.
	slices.SortFunc(e.policies, func(a, b *policy) int { return cmp.Compare(a.Name, b.Name) })
	e.kinds = map[string]bool{}
	for _, p := range e.policies {
		for _, r := range p.Spec.Match.Resources {
			for _, k := range r.Kinds {
				e.kinds[k] = k != "*"
			}
		}
	}
	if schemas != nil {
		for _, gvk := range schemas.Kinds() {
			e.kinds[gvk.Kind] = true
		}
	}
	return e, nil
}

// KnowsKind tells whether a policy names kind or a CRD defines it: a
// bounded set, for labels that must not take any value a caller sends.
func (e *Engine) KnowsKind(kind string) bool { return e.kinds[kind] }

// Schemas returns the registry the engine validates objects against, nil
// when it has none. Validating a new GuardPolicy against the same registry
// gives it the verdict the engine would give it when compiling.
func (e *Engine) Schemas() *schema.Registry { return e.schemas }

// Matches are the match of each policy, by name: what requests must reach
// the engine for the policy to be enforced.
func (e *Engine) Matches() map[string]v1alpha1.Match {
	out := make(map[string]v1alpha1.Match, len(e.policies))
	for _, p := range e.policies {
		out[p.Name] = p.Spec.Match
	}
	return out
}

// UsesNamespaceSelector tells whether any policy selects namespaces by
// label, so callers know whether Request.NamespaceLabels matter.
func (e *Engine) UsesNamespaceSelector() bool {
	return slices.ContainsFunc(e.policies, func(p *policy) bool { return !p.NamespaceSelector.Empty() })
}

// Evaluate decides a request. An error means the request could not be
// evaluated (a CRD schema that does not compile, say): the caller must not
// treat that as allowed.
func (e *Engine) Evaluate(ctx context.Context, req Request) (Result, error) {
	var res Result
	if req.subject() == nil {
		return res, errors.New("the request has no object")
	}
	// guarding are the policies of the object, whatever the operation: an
	// approval of a DELETE is written by an UPDATE, and only their
	// approvers may write it. A policy of other operations decides nothing
	// in a request that carries no approval, so it is not matched, and
	// needs no namespace labels.
	carriesApproval := carriesApproval(&req)
	var guarding, matched []*policy
	obj := newMatchedObject(&req)
	for _, p := range e.policies {
		if !p.matchesOperation(&req) && !carriesApproval {
			continue
		}
		ok, err := p.matchesObject(&req, obj)
		if err != nil {
			return res, err
		}
		if !ok {
			continue
		}
		guarding = append(guarding, p)
		if p.matchesOperation(&req) {
			matched = append(matched, p)
			res.Policies = append(res.Policies, p.Name)
		}
	}
	// The server's warnings of a request it decodes and validates itself
	// are recorded in ctx, in its order.
	var recorded *schema.WarningRecorder
	if e.schemas != nil && !req.Admitted {
		ctx, recorded = schema.RecordWarnings(ctx)
	}
	// An object handed over that no policy guards is validated in place:
	// nothing reads the rest of it afterwards.
	var handedOver *unstructured.Unstructured
	if req.HandsOverObject && req.Object != nil && len(guarding) == 0 && e.schemas != nil && !req.Admitted {
		handedOver, req.Object = req.Object, kindAndMetadata(req.Object)
	}
	view, err := e.validateSchema(ctx, req, handedOver, len(matched) > 0, &res)
	if err != nil {
		return res, err
	}
	if err := e.mutate(ctx, &view, matched, &res); err != nil {
		return res, err
	}
	if err := e.storePatched(ctx, view, &res); err != nil {
		return res, err
	}
	if err := e.check(ctx, &view, matched, &res); err != nil {
		return res, err
	}
	applyApproval(&view, guarding, &res)
	if recorded != nil {
		e.addStrategyWarnings(ctx, req, &res)
		res.ServerWarnings = recorded.Warnings()
	}
	return res, nil
}

// addStrategyWarnings records the warnings the server adds to a request it
// accepts, such as finalizer names that are not domain-qualified.
func (e *Engine) addStrategyWarnings(ctx context.Context, req Request, res *Result) {
	if !res.SchemaValidated || !res.Allowed() {
		return
	}
	validator, err := e.schemas.Validator(req.Object.GroupVersionKind())
	if err != nil {
		return
	}
	for _, w := range validator.Warnings(ctx, req.Object, req.OldObject) {
		warning.AddWarning(ctx, "", w)
	}
}

// kindAndMetadata is a copy of obj's apiVersion, kind and metadata.
func kindAndMetadata(obj *unstructured.Unstructured) *unstructured.Unstructured {
	kept := make(map[string]any, 3)
	for _, k := range []string{"apiVersion", "kind", "metadata"} {
		if v, ok := obj.Object[k]; ok {
			kept[k] = runtime.DeepCopyJSONValue(v)
		}
	}
	return &unstructured.Unstructured{Object: kept}
}

// validateSchema validates the object against its CRD, if one is loaded,
// and returns the request as policies see it: what admission webhooks see,
// the objects pruned and defaulted by the API server (decoded only when a
// policy will look). handedOver, when not nil, is the object to validate
// in place of req.Object, which then holds its kind and metadata.
func (e *Engine) validateSchema(ctx context.Context, req Request, handedOver *unstructured.Unstructured, decode bool, res *Result) (Request, error) {
	view := req
	if e.schemas == nil || req.Admitted {
		return view, nil
	}
	// An unserved version has no validator: its policies see the object as sent.
	validator, validatorErr := e.schemas.Validator(req.subject().GroupVersionKind())
	if req.Operation != v1alpha1.Delete {
		// The CRD handler warns of a deprecated version first, whatever
		// the verdict; validation then of its ratcheted CEL rules.
		if validatorErr == nil {
			for _, w := range validator.DeprecationWarnings() {
				warning.AddWarning(ctx, "", w)
			}
		}
		stored, errs, err := e.validateObject(ctx, req, handedOver)
		var noSchema *schema.NoSchemaError
		switch {
		case errors.As(err, &noSchema):
			return view, nil
		case err != nil:
			return view, err
		}
		res.SchemaValidated = true
		res.Violations = append(res.Violations, schemaViolations(errs)...)
		if req.ShowStored && len(errs) == 0 {
			res.Stored = stored
		}
	}
	if validatorErr != nil || !decode {
		return view, nil
	}
	if req.Object != nil {
		view.Object = validator.Decode(req.Object)
	}
	if req.OldObject != nil {
		view.OldObject = validator.Decode(req.OldObject)
	}
	return view, nil
}

// validateObject validates the request's object, or the one handed over,
// against its CRD, and prepares the stored object only when the request
// asks to see it.
func (e *Engine) validateObject(ctx context.Context, req Request, handedOver *unstructured.Unstructured) (*unstructured.Unstructured, field.ErrorList, error) {
	obj, opts := req.Object, schema.ValidateOptions{FieldValidation: req.FieldValidation}
	if handedOver != nil {
		obj, opts.HandOverObject = handedOver, true
	}
	if req.ShowStored {
		return e.schemas.DryRun(ctx, obj, req.OldObject, opts)
	}
	errs, err := e.schemas.ValidateWithOptions(ctx, obj, req.OldObject, opts)
	return nil, errs, err
}

// storePatched replaces the stored object by the patched one when the
// policies' mutations changed it: the server decodes a mutating webhook's
// answer again (pruning, defaulting) and validates the result before it
// stores it.
func (e *Engine) storePatched(ctx context.Context, view Request, res *Result) error {
	if res.Stored == nil || len(res.Patches) == 0 {
		return nil
	}
	res.Stored = nil
	stored, errs, err := e.schemas.DryRun(ctx, view.Object, view.OldObject, schema.ValidateOptions{FieldValidation: view.FieldValidation})
	if err != nil {
		return err
	}
	if len(errs) == 0 {
		res.Stored = stored
	}
	return nil
}

// check runs the matched policies' rules and records their findings with
// the rule's enforcement.
func (e *Engine) check(ctx context.Context, view *Request, matched []*policy, res *Result) error {
	in := view.forRules()
	var outcomes ruleOutcomes
	if len(matched) > 1 {
		outcomes = ruleOutcomes{}
	}
	for _, p := range matched {
		// A request whose caller has gone gets no verdict: with many
		// policies, the rest would be work for nobody.
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("policy %s: %w", p.Name, err)
		}
		// One CEL cost budget per policy and request, as the API server
		// gives one per ValidatingAdmissionPolicy binding.
		ctx := rules.WithCELBudget(ctx)
		for _, r := range p.Rules {
			if !slices.Contains(r.Operations(), view.Operation) {
				continue
			}
			found, err := outcomes.check(ctx, r.Rule, in)
			if err != nil {
				return fmt.Errorf("policy %s, rule %s: %w", p.Name, r.Name, err)
			}
			for _, f := range found {
				f.Policy, f.Rule, f.Enforcement = p.Name, r.Name, rules.Weaker(f.Enforcement, r.Enforcement)
				res.Violations = append(res.Violations, f)
			}
		}
	}
	return nil
}

// mutate collects the patches of the matched policies' mutating rules and
// applies them to the view, so the checks see the object as the mutating
// webhook leaves it.
func (e *Engine) mutate(ctx context.Context, view *Request, matched []*policy, res *Result) error {
	if view.Operation == v1alpha1.Delete {
		return nil
	}
	// idle are the mutators that proposed nothing on the view as it is:
	// a mutator reads only the request, so a policy sharing one of them
	// (rules.Compiler) would propose nothing either.
	idle := map[rules.Rule]bool{}
	for _, p := range matched {
		for _, r := range p.Rules {
			m, ok := r.Rule.(rules.Mutator)
			if !ok || idle[r.Rule] || !slices.Contains(r.Operations(), view.Operation) {
				continue
			}
			// Each mutator sees the previous one's changes, so two rules
			// adding to the same new map do not overwrite each other.
			patches := m.Mutate(ctx, view.forRules())
			if len(patches) == 0 {
				idle[r.Rule] = true
				continue
			}
			clear(idle) // the view changes
			patched, err := rules.ApplyPatches(view.Object, patches)
			if err != nil {
				return fmt.Errorf("policy %s, rule %s: applying its patches: %w", p.Name, r.Name, err)
			}
			view.Object = patched
			res.Patches = append(res.Patches, patches...)
		}
	}
	return nil
}

// schemaViolations turns the API server's field errors into violations.
// The message is the cause message kube-apiserver sends, so output reads
// as kubectl's does.
func schemaViolations(errs field.ErrorList) []report.Finding {
	out := make([]report.Finding, len(errs))
	for i, e := range errs {
		rule := "validation"
		if schema.IsUnknownField(e) {
			rule = "unknown-field"
		}
		out[i] = report.Finding{Field: e.Field, Type: string(e.Type), Message: e.ErrorBody(), Policy: SchemaPolicy, Rule: rule, Enforcement: v1alpha1.Deny}
	}
	return out
}
