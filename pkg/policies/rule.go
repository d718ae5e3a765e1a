package policies

import (
	"context"

	"gomodules.xyz/jsonpatch/v2"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// rule is a compiled check. It reports what is wrong as field errors; the
// engine adds the policy, the rule name and the enforcement.
type rule interface {
	// operations are the operations the rule has an opinion on.
	operations() []v1alpha1.Operation
	// check reports what is wrong. An error means the rule reached no
	// verdict (a CEL expression over its cost limit or the policy's
	// budget, a cancelled request): Evaluate fails, so the webhook answers
	// 500 and its failurePolicy decides, where a finding would be let
	// through under Warn or Audit.
	check(ctx context.Context, req *Request) ([]finding, error)
}

// mutator is a rule that proposes changes to the object.
type mutator interface {
	mutate(ctx context.Context, req *Request) []jsonpatch.Operation
}

// finding is a rule's report of one problem.
type finding struct {
	*field.Error
	// enforcement, when set and weaker than the rule's, replaces it: a
	// rule's configuration may soften one class of its findings
	// (imageVersion's digestOnly: Warn).
	enforcement v1alpha1.Enforcement
}

func findings(errs ...*field.Error) []finding {
	out := make([]finding, len(errs))
	for i, e := range errs {
		out[i] = finding{Error: e}
	}
	return out
}

// compileEnv is what rules may use while compiling.
type compileEnv struct {
	// schemas answers list-map keys; nil when no CRDs are loaded.
	schemas *schema.Registry
	// kinds are the kinds of schemas the policy being compiled matches.
	kinds []runtimeschema.GroupVersionKind
}

// ruleKind is one kind of rule: how to recognise its configuration in a
// v1alpha1.Rule and how to compile it.
type ruleKind struct {
	name string
	// configured tells whether spec configures this kind.
	configured func(spec *v1alpha1.Rule) bool
	// compile validates the configuration at path and builds the rule.
	compile func(spec *v1alpha1.Rule, path *field.Path, env *compileEnv) (rule, field.ErrorList)
	// vap compiles the rule to ValidatingAdmissionPolicy validations, or
	// says with a *needsWebhookError why it stays with the webhook.
	vap func(r rule, c *vapCompiler) ([]vapCheck, error)
}

var (
	createUpdate       = []v1alpha1.Operation{v1alpha1.Create, v1alpha1.Update}
	onlyUpdate         = []v1alpha1.Operation{v1alpha1.Update}
	onlyDelete         = []v1alpha1.Operation{v1alpha1.Delete}
	createUpdateDelete = []v1alpha1.Operation{v1alpha1.Create, v1alpha1.Update, v1alpha1.Delete}
)
