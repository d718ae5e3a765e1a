package schema

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/warning"
)

// FieldValidation is a request's fieldValidation parameter: what the API
// server does with fields the schema does not declare.
type FieldValidation string

// The server's three modes.
const (
	// FieldValidationStrict rejects an object with unknown fields (a
	// 400 that lists them). It is kubectl's default (--validate=strict).
	FieldValidationStrict FieldValidation = metav1.FieldValidationStrict
	// FieldValidationWarn drops unknown fields and warns of each one.
	FieldValidationWarn FieldValidation = metav1.FieldValidationWarn
	// FieldValidationIgnore drops unknown fields in silence.
	FieldValidationIgnore FieldValidation = metav1.FieldValidationIgnore
)

// FieldValidations lists the modes in the order help text shows them.
func FieldValidations() []FieldValidation {
	return []FieldValidation{FieldValidationStrict, FieldValidationWarn, FieldValidationIgnore}
}

// ParseFieldValidation reads a mode in any letter case, as the server does.
func ParseFieldValidation(s string) (FieldValidation, error) {
	for _, m := range FieldValidations() {
		if strings.EqualFold(s, string(m)) {
			return m, nil
		}
	}
	return "", fmt.Errorf("field validation %q: want Strict, Warn or Ignore", s)
}

// ValidateOptions are the options of a request that change its validation.
// The zero value validates as a request with fieldValidation=Strict.
type ValidateOptions struct {
	// FieldValidation says what unknown fields are: errors at their paths
	// (Strict, the default when empty), warnings recorded in the context
	// (Warn, see RecordWarnings), or nothing (Ignore). Under every mode
	// they are pruned before the schema validates the rest, so the other
	// errors are the same.
	FieldValidation FieldValidation
	// HandOverObject says the caller gives the new object up: validation
	// prepares that object itself for storage, and DryRun returns it,
	// rather than a copy, so it is left changed in ways nobody may rely
	// on. False (the default) leaves it unmodified. The old object, and a
	// new object that is also the old one, are never changed; under
	// WithFastPathVerification both validations get a copy.
	HandOverObject bool
}

// unknownFieldWarning words an unknown field as the server's strict
// decoder does, in its error under Strict and in its warning under Warn.
func unknownFieldWarning(path string) string {
	return fmt.Sprintf("unknown field %q", path)
}

// applyFieldValidation turns the pruned paths into what mode makes of them:
// errors, or warnings added to ctx's recorder.
func applyFieldValidation(ctx context.Context, mode FieldValidation, paths []string) field.ErrorList {
	switch mode {
	case FieldValidationIgnore:
		return nil
	case FieldValidationWarn:
		for _, path := range paths {
			warning.AddWarning(ctx, "", unknownFieldWarning(path))
		}
		return nil
	}
	return unknownFieldErrors(paths)
}
