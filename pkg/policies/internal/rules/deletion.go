package rules

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// deletionKind protects objects from DELETE, always or while a CEL
// condition over the object holds.
var deletionKind = ruleKind{
	name:       "deletion",
	configured: func(r *v1alpha1.Rule) bool { return r.Deletion != nil },
	compile:    compileDeletion,
}

type Deletion struct {
	// Condition is nil when deletion is always denied.
	Condition *celProgram
	Message   string
}

func compileDeletion(spec *v1alpha1.Rule, path *field.Path, _ *compileEnv) (Rule, field.ErrorList) {
	cfg := spec.Deletion
	path = path.Child("deletion")
	r := &Deletion{Message: strings.TrimSpace(cfg.Message)}
	var errs field.ErrorList
	if strings.TrimSpace(cfg.Condition) != "" {
		var err *field.Error
		if r.Condition, err = compileCEL(cfg.Condition, cel.BoolType, path.Child("condition")); err != nil {
			errs = append(errs, err)
		}
	}
	if strings.Contains(cfg.Message, "\n") {
		errs = append(errs, field.Invalid(path.Child("message"), cfg.Message, "must not contain line breaks"))
	}
	return r, errs
}

func (r *Deletion) Operations() []v1alpha1.Operation { return onlyDelete }

// check denies the deletion. The finding is Forbidden at the object
// root ("<nil>"), where the API server reports what concerns the whole
// object: no field of it is wrong, the operation is.
func (r *Deletion) Check(ctx context.Context, req *Request) ([]Finding, error) {
	obj := req.subject()
	if r.Condition != nil {
		// object is the object being deleted, as the API documents; so is
		// oldObject, which is where a ValidatingAdmissionPolicy finds it
		// on DELETE, so a condition written either way works.
		act := &celActivation{object: obj.Object, oldObject: obj.Object, request: celRequestValue{req: req}}
		holds, err := r.Condition.evalBool(ctx, act, celBudgetFrom(ctx))
		switch {
		case errors.Is(err, errCELUnevaluable):
			return nil, err
		case err != nil:
			// Fail closed: a protection whose condition cannot be decided
			// on this object protects it, under the rule's enforcement.
			return findings(field.Invalid(nil, field.OmitValueType{}, "rule could not be evaluated on this object: "+err.Error())), nil
		case !holds:
			return nil, nil
		}
	}
	msg := r.Message
	if msg == "" {
		msg = fmt.Sprintf("deleting %s %s is not allowed", obj.GetKind(), objectName(obj.GetNamespace(), obj.GetName()))
		if r.Condition != nil {
			msg += " while " + strings.TrimSpace(r.Condition.Expression)
		}
	}
	return findings(field.Forbidden(nil, msg)), nil
}

// objectName is "namespace/name", or "name" for a cluster-scoped object.
func objectName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
