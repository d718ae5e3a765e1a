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
