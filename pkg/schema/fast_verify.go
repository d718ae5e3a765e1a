package schema

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/warning"
)

type verifyFastPathsKey struct{}

// WithFastPathVerification returns a context under which Registry.Validate
// and Registry.DryRun validate every object twice, with the fast paths and
// with kube-apiserver's validators alone, and return a
// *FastPathMismatchError when the two differ in any error, path or
// message, or in the warnings validation records. It doubles the cost of
// validation.
func WithFastPathVerification(ctx context.Context) context.Context {
	return context.WithValue(ctx, verifyFastPathsKey{}, true)
}

// VerifiesFastPaths tells whether ctx asks for fast path verification
// (see WithFastPathVerification).
func VerifiesFastPaths(ctx context.Context) bool {
	verify, _ := ctx.Value(verifyFastPathsKey{}).(bool)
	return verify
}

// FastPathMismatchError says that the fast paths and kube-apiserver's own
// validators disagree on an object: a bug in crdguard, which then reports
// no verdict rather than one that may be wrong.
type FastPathMismatchError struct {
	GroupVersionKind schema.GroupVersionKind
	Namespace, Name  string
	// Fast and Upstream are the errors of each side, as strings, then its
	// warnings, each prefixed "warning: ".
	Fast, Upstream []string
}

func (e *FastPathMismatchError) Error() string {
	name := e.Name
	if e.Namespace != "" {
		name = e.Namespace + "/" + name
	}
	return fmt.Sprintf("fast path verification failed for %s %q: with fast paths [%s], kube-apiserver's validators alone [%s]; please report this bug",
		e.GroupVersionKind, name, strings.Join(e.Fast, "; "), strings.Join(e.Upstream, "; "))
}

// errorStrings is errs as compared: each error's full text.
func errorStrings(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, err := range errs {
		out[i] = err.Error()
	}
	return out
}

// sameErrors tells whether a and b are byte for byte the same errors.
func sameErrors(a, b field.ErrorList) bool {
	return slices.Equal(errorStrings(a), errorStrings(b))
}

// sameWarnings tells whether a and b hold the same warnings. Their order
// is not compared: upstream's CEL validator walks an object's maps in Go's
// map order, so the order of its warnings changes from call to call.
func sameWarnings(a, b *WarningRecorder) bool {
	return slices.Equal(slices.Sorted(slices.Values(a.warnings)), slices.Sorted(slices.Values(b.warnings)))
}

// forward records r's warnings in ctx, in their order.
func (r *WarningRecorder) forward(ctx context.Context) {
	for _, text := range r.warnings {
		warning.AddWarning(ctx, "", text)
	}
}

// asFindings words r's warnings as a *FastPathMismatchError lists them,
// after the errors.
func (r *WarningRecorder) asFindings() []string {
	out := make([]string, len(r.warnings))
	for i, text := range r.warnings {
		out[i] = "warning: " + text
	}
	return out
}
