package schema_test

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	crdschema "github.com/crdguard/crdguard/pkg/schema"
)

func TestDeprecationWarnings(t *testing.T) {
	registry, err := crdschema.RegistryFromFiles(t.Context(), "testdata/gadgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for version, want := range map[string][]string{
		"v1":       nil,
		"v2alpha1": nil,
		"v1beta2":  {"test.crdguard.dev/v1beta2 Gadget is deprecated; use test.crdguard.dev/v1 Gadget"},
		"v1beta1":  {"test.crdguard.dev/v1beta1 Gadget is going away: move to v1"},
		"v3":       {"test.crdguard.dev/v3 Gadget is deprecated"},
	} {
		v, err := registry.Validator(schema.GroupVersionKind{Group: "test.crdguard.dev", Version: version, Kind: "Gadget"})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.DeprecationWarnings(); !slices.Equal(got, want) {
			t.Errorf("%s: warnings %q, want %q", version, got, want)
		}
	}
}

// TestRatchetingWarnings checks that a CEL rule an unchanged value still
// breaks is a warning of the update, recorded in the context, not an error.
func TestRatchetingWarnings(t *testing.T) {
	dir := "../../test/e2e/testdata/widgets-updates/spec-cel-unchanged/"
	obj, old := readObject(t, dir+"new.yaml"), readObject(t, dir+"old.yaml")
	ctx, recorder := crdschema.RecordWarnings(t.Context())
	errs, err := widgets(t).Validate(ctx, obj, old)
	if err != nil || len(errs) > 0 {
		t.Fatalf("Validate: %v %v, want no errors", errs, err)
	}
	want := []string{"spec: Forbidden: a huge widget allows at most 3 replicas"}
	if got := recorder.Warnings(); !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}

	// A create has nothing to ratchet: the same rule is an error.
	ctx, recorder = crdschema.RecordWarnings(t.Context())
	if errs, _ := widgets(t).Validate(ctx, obj, nil); len(errs) != 1 || errs[0].Error() != want[0] {
		t.Errorf("create: errors %v, want %q", errs, want[0])
	}
	if got := recorder.Warnings(); len(got) > 0 {
		t.Errorf("create: warnings %q, want none", got)
	}
}
