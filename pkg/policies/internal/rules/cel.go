package rules

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// celKind is a custom rule: a CEL expression over object, oldObject and
// request that must be true. It behaves like one validation of a
// ValidatingAdmissionPolicy: the same variables, libraries, cost limits,
// message fallbacks and default message.
var celKind = ruleKind{
	name:       "cel",
	configured: func(r *v1alpha1.Rule) bool { return r.CEL != nil },
	compile:    compileCELRule,
}

type CEL struct {
	Expression *celProgram
	// MessageExpression is nil when the rule has none.
	MessageExpression *celProgram
	Message           string
	// FieldPath is where findings are reported; nil reports at the object
	// root, printed "<nil>" like the API server prints a root-level CEL
	// rule's errors.
	FieldPath *ObjectPath
	at        *field.Path
}

func compileCELRule(spec *v1alpha1.Rule, path *field.Path, _ *compileEnv) (Rule, field.ErrorList) {
	cfg := spec.CEL
	path = path.Child("cel")
	r := &CEL{Message: strings.TrimSpace(cfg.Message)}
	var errs field.ErrorList
	var err *field.Error
	if strings.TrimSpace(cfg.Expression) == "" {
		errs = append(errs, field.Required(path.Child("expression"), "a CEL expression that is true when the request passes"))
	} else if r.Expression, err = compileCEL(cfg.Expression, cel.BoolType, path.Child("expression")); err != nil {
		errs = append(errs, err)
	}
	if cfg.MessageExpression != "" {
		if r.MessageExpression, err = compileCEL(cfg.MessageExpression, cel.StringType, path.Child("messageExpression")); err != nil {
			errs = append(errs, err)
		}
	}
	// One finding is one line of kubectl's output and one admission
	// warning, which may not hold a line break.
	if strings.Contains(cfg.Message, "\n") {
		errs = append(errs, field.Invalid(path.Child("message"), cfg.Message, "must not contain line breaks"))
	}
	if cfg.FieldPath != "" {
		p, perr := parsePath(cfg.FieldPath)
		switch {
		case perr != nil:
			errs = append(errs, field.Invalid(path.Child("fieldPath"), cfg.FieldPath, perr.Error()))
		case p.HasWildcard():
			errs = append(errs, field.Invalid(path.Child("fieldPath"), cfg.FieldPath, "must name one field: [*] is not allowed"))
		default:
			r.FieldPath, r.at = &p, p.FieldPath()
		}
	}
	return r, errs
}

// operations: a cel rule may speak on every operation; request.operation
// tells the expression which one it is.
func (r *CEL) Operations() []v1alpha1.Operation { return CreateUpdateDelete }

// check evaluates the rule. An evaluation that reaches no verdict (cost
// limit, budget, cancellation) is an error, not a finding.
func (r *CEL) Check(ctx context.Context, req *Request) ([]Finding, error) {
	act, budget := newCELActivation(req), celBudgetFrom(ctx)
	ok, err := r.Expression.evalBool(ctx, act, budget)
	switch {
	case errors.Is(err, errCELUnevaluable):
		return nil, err
	case err != nil:
		// The expression fails on this object (a missing key, a value of
		// another type): like a CRD validation rule, that is a finding
		// under the rule's enforcement, not a server error.
		msg := "rule could not be evaluated on this object: " + err.Error()
		if req.Object == nil {
			// The usual cause: a rule written for CREATE and UPDATE in a
			// policy that also matches DELETE, as in a
			// ValidatingAdmissionPolicy.
			msg += "; object is null on DELETE: test request.operation, or use oldObject"
		}
		return findings(field.Invalid(r.at, field.OmitValueType{}, msg)), nil
	case ok:
		return nil, nil
	}
	msg, err := r.failureMessage(ctx, act, budget)
	if err != nil {
		return nil, err
	}
	return findings(field.Invalid(r.at, r.value(req), msg)), nil
}

// failureMessage is messageExpression's result, else message, else
// "failed expression: <expression>", as in a ValidatingAdmissionPolicy.
// Unlike the API server, which only logs it, a failing messageExpression is
// named in the message: crdguard has no log the policy author reads.
func (r *CEL) failureMessage(ctx context.Context, act *celActivation, budget *celBudget) (string, error) {
	var problem string
	if r.MessageExpression != nil {
		out, err := r.MessageExpression.eval(ctx, act, budget)
		if errors.Is(err, errCELUnevaluable) {
			return "", err
		}
		var msg string
		if err == nil {
			msg, _ = out.Value().(string)
			msg = strings.TrimSpace(msg)
		}
		switch {
		case err != nil:
			// The expression is the rule's; name only what went wrong.
			problem = "failed: " + cmp.Or(errors.Unwrap(err), err).Error()
		case msg == "":
			problem = "evaluated to an empty string"
		case strings.Contains(msg, "\n"):
			problem = "evaluated to a message with a line break"
		case len(msg) > celconfig.MaxEvaluatedMessageExpressionSizeBytes:
			problem = fmt.Sprintf("evaluated to a message longer than %d bytes", celconfig.MaxEvaluatedMessageExpressionSizeBytes)
		default:
			return msg, nil
		}
	}
	msg := r.Message
	if msg == "" {
		msg = "failed expression: " + strings.TrimSpace(r.Expression.Expression)
	}
	if problem != "" {
		msg += " (messageExpression " + problem + ")"
	}
	return msg, nil
}

// value is what the finding shows as the invalid value: the scalar at
// fieldPath, as the API server shows "Invalid value: 2"; objects and lists
// are left out, they would drown the message.
func (r *CEL) value(req *Request) any {
	if r.FieldPath == nil {
		return field.OmitValueType{}
	}
	v, _, found := r.FieldPath.get(req.subject().Object)
	switch v.(type) {
	case string, bool, int64, float64:
		if found {
			return v
		}
	}
	return field.OmitValueType{}
}
