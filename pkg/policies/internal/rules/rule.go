package rules

import (
	"context"

	"gomodules.xyz/jsonpatch/v2"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Rule is a compiled check. It reports what is wrong as field errors; the
// engine adds the policy, the rule name and the enforcement.
type Rule interface {
	// Operations are the operations the rule has an opinion on.
	Operations() []v1alpha1.Operation
	// Check reports what is wrong. An error means the rule reached no
	// verdict (a CEL expression over its cost limit or the policy's
	// budget, a cancelled request): Evaluate fails, so the webhook answers
	// 500 and its failurePolicy decides, where a finding would be let
	// through under Warn or Audit.
	Check(ctx context.Context, req *Request) ([]Finding, error)
}

// Mutator is a rule that proposes changes to the object.
type Mutator interface {
	Mutate(ctx context.Context, req *Request) []jsonpatch.Operation
}

// Request is the part of an admission request that rules read, as the
// engine sees it: the objects decoded by their CRD, after the mutators.
type Request struct {
	Operation v1alpha1.Operation
	// Object is the object after the operation; nil on DELETE.
	Object *unstructured.Unstructured
	// OldObject is the stored object on UPDATE and DELETE.
	OldObject *unstructured.Unstructured
	// Namespace the object is in; "" for cluster-scoped objects.
	Namespace string
	UserInfo  authenticationv1.UserInfo
	DryRun    bool
}

// subject is the object the request is about: the new object, or the
// stored one on DELETE.
func (r *Request) subject() *unstructured.Unstructured {
	if r.Object != nil {
		return r.Object
	}
	return r.OldObject
}

// Finding is a rule's report of one problem.
type Finding struct {
	*field.Error
	// Enforcement, when set and weaker than the rule's, replaces it: a
	// rule's configuration may soften one class of its findings
	// (imageVersion's digestOnly: Warn).
	Enforcement v1alpha1.Enforcement
}

func findings(errs ...*field.Error) []Finding {
	out := make([]Finding, len(errs))
	for i, e := range errs {
		out[i] = Finding{Error: e}
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
	compile func(spec *v1alpha1.Rule, path *field.Path, env *compileEnv) (Rule, field.ErrorList)
}

// The operations rules have an opinion on.
var (
	createUpdate       = []v1alpha1.Operation{v1alpha1.Create, v1alpha1.Update}
	onlyUpdate         = []v1alpha1.Operation{v1alpha1.Update}
	onlyDelete         = []v1alpha1.Operation{v1alpha1.Delete}
	CreateUpdateDelete = []v1alpha1.Operation{v1alpha1.Create, v1alpha1.Update, v1alpha1.Delete}
)
