package schema

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// TestFastPathVerification breaks a validator's fast check so that it
// accepts everything, and checks that verification catches the difference
// and answers with kube-apiserver's errors.
func TestFastPathVerification(t *testing.T) {
	registry, err := RegistryFromFiles(t.Context(), "testdata/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := manifest.ReadFile("testdata/cases/openapi-enum/new.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obj := docs[0].Object
	v, err := registry.Validator(obj.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	v.fastSchema.check = &check{} // no keyword: every value is valid
	const enumError = `spec.size: Unsupported value: "gigantic": supported values: "small", "medium", "large", "huge"`

	if errs, err := registry.Validate(t.Context(), obj, nil); err != nil || slices.Contains(errorStrings(errs), enumError) {
		t.Fatalf("without verification: errors %v, %v; want the broken check to hide %q", errs, err, enumError)
	}

	ctx := WithFastPathVerification(t.Context())
	_, _, err = registry.DryRun(ctx, obj, nil, ValidateOptions{})
	var mismatch *FastPathMismatchError
	if !errors.As(err, &mismatch) {
		t.Fatalf("error %v, want a *FastPathMismatchError", err)
	}
	if slices.Contains(mismatch.Fast, enumError) || !slices.Contains(mismatch.Upstream, enumError) {
		t.Errorf("fast %q, upstream %q: want %q upstream only", mismatch.Fast, mismatch.Upstream, enumError)
	}
	const prefix = `fast path verification failed for test.crdguard.dev/v1, Kind=Widget "default/w": with fast paths [`
	if !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("message %q, want it to start with %q", err, prefix)
	}
	if errs := v.Validate(ctx, obj, nil); !slices.Contains(errorStrings(errs), enumError) {
		t.Errorf("Validate under verification: %v, want kube-apiserver's errors", errs)
	}
}

// TestFastPathVerificationCoversCEL breaks a validator's fast CEL check
// so that it accepts every rule, and checks that verification catches
// both what that hides: a false rule's error on a create, and on an
// update that keeps the rule false, the warning ratcheting turns it into.
func TestFastPathVerificationCoversCEL(t *testing.T) {
	registry, err := RegistryFromFiles(t.Context(), "testdata/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := manifest.ReadFile("testdata/cases/valid-minimal/new.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obj := docs[0].Object
	spec := obj.Object["spec"].(map[string]any)
	spec["replicas"], spec["minReplicas"] = int64(1), int64(2)
	v, err := registry.Validator(obj.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	if v.fastCEL == nil {
		t.Fatal("the widgets CRD has CEL rules, want a fast CEL check")
	}
	v.fastCEL = &celCheck{} // no node: every rule is accepted
	const celError = "spec.replicas: Invalid value: replicas must not be below minReplicas"

	if errs := v.Validate(t.Context(), obj, nil); slices.Contains(errorStrings(errs), celError) {
		t.Fatalf("without verification: errors %v; want the broken check to hide %q", errs, celError)
	}
	ctx := WithFastPathVerification(t.Context())
	for _, tt := range []struct {
		name string
		old  *unstructured.Unstructured
		want string
	}{
		{"create", nil, celError},
		{"update that keeps the rule false", obj, "warning: " + celError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := registry.DryRun(ctx, obj, tt.old, ValidateOptions{})
			var mismatch *FastPathMismatchError
			if !errors.As(err, &mismatch) {
				t.Fatalf("error %v, want a *FastPathMismatchError", err)
			}
			if slices.Contains(mismatch.Fast, tt.want) || !slices.Contains(mismatch.Upstream, tt.want) {
				t.Errorf("fast %q, upstream %q: want %q upstream only", mismatch.Fast, mismatch.Upstream, tt.want)
			}
		})
	}
}
