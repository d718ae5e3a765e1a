package schema

import (
	"errors"

	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// fastSchemaValidator is the OpenAPI schema validator the strategy runs: a
// check compiled once per schema that may only ever say "valid". Whatever
// it cannot accept for certain, every error included, goes to upstream,
// so every error, path and message stays kube-apiserver's own.
type fastSchemaValidator struct {
	check    *check
	upstream apiservervalidation.SchemaValidator
}

var _ apiservervalidation.SchemaValidator = (*fastSchemaValidator)(nil)

// newFastSchemaValidator compiles openAPISchema, the schema upstream was
// built from, in front of upstream.
func newFastSchemaValidator(openAPISchema *spec.Schema, upstream apiservervalidation.SchemaValidator) *fastSchemaValidator {
	return &fastSchemaValidator{check: compileCheck(openAPISchema), upstream: upstream}
}

// Validate is upstream's Validate, answered without it when value is
// certainly valid.
func (f *fastSchemaValidator) Validate(value any, options ...apiservervalidation.ValidationOption) *validate.Result {
	if f.check.eval(value) == valid {
		return &validate.Result{}
	}
	return f.upstream.Validate(value, options...)
}

// ValidateUpdate is upstream's ValidateUpdate, answered without it when
// the new value is certainly valid: ratcheting only ever drops errors of
// the new value.
func (f *fastSchemaValidator) ValidateUpdate(value, old any, options ...apiservervalidation.ValidationOption) *validate.Result {
	if f.check.eval(value) == valid {
		return &validate.Result{}
	}
	return f.upstream.ValidateUpdate(value, old, options...)
}

// acceptOnlyValidator is the schema validator of the strategies that run
// first on the fast paths (see validatePrepared): any error there runs the
// whole strategy, whose fastSchemaValidator gives kube-apiserver's errors.
// So it only tells whether the check certainly accepts, and never runs
// upstream's validator, which would otherwise run twice on every object
// the check cannot accept.
type acceptOnlyValidator struct{ check *check }

var _ apiservervalidation.SchemaValidator = acceptOnlyValidator{}

// errNotCertainlyValid is acceptOnlyValidator's answer for a value the
// check cannot accept; it never reaches a report.
var errNotCertainlyValid = errors.New("not certainly valid: left to kube-apiserver's validator")

// Validate has no errors when value is certainly valid, and
// errNotCertainlyValid otherwise.
func (a acceptOnlyValidator) Validate(value any, _ ...apiservervalidation.ValidationOption) *validate.Result {
	if a.check.eval(value) == valid {
		return &validate.Result{}
	}
	return &validate.Result{Errors: []error{errNotCertainlyValid}}
}

// ValidateUpdate is Validate of the new value: a ratcheted error is left
// to the whole strategy as well.
func (a acceptOnlyValidator) ValidateUpdate(value, _ any, _ ...apiservervalidation.ValidationOption) *validate.Result {
	return a.Validate(value)
}
