package schema_test

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/warning"

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

// TestWarningRecorderLimits checks the server's recorder's rules: repeats
// dropped; past 4096 runes in all, each warning cut to 256 runes, and none
// added once the cut ones reach 4096 again.
func TestWarningRecorderLimits(t *testing.T) {
	ctx, recorder := crdschema.RecordWarnings(t.Context())
	warning.AddWarning(ctx, "", "short")
	warning.AddWarning(ctx, "", "short")
	if got := recorder.Warnings(); !slices.Equal(got, []string{"short"}) {
		t.Errorf("warnings %q, want [short]", got)
	}

	long := func(c rune) string { return strings.Repeat(string(c), 1000) }
	ctx, recorder = crdschema.RecordWarnings(t.Context())
	for c := 'a'; c <= 'd'; c++ {
		warning.AddWarning(ctx, "", long(c)) // 4000 runes: within the limit
	}
	if got := recorder.Warnings(); len(got) != 4 || got[3] != long('d') {
		t.Fatalf("4000 runes: %d warnings, want 4 whole ones", len(got))
	}
	for c := 'e'; c <= 'z'; c++ {
		warning.AddWarning(ctx, "", long(c))
	}
	got := recorder.Warnings()
	// 16 warnings cut to 256 runes make 4096.
	if len(got) != 16 {
		t.Fatalf("%d warnings, want 16", len(got))
	}
	for i, w := range got {
		if want := strings.Repeat(string(rune('a'+i)), 256); w != want {
			t.Errorf("warning %d: %.10q... (%d runes), want 256 %q", i, w, len(w), rune('a'+i))
		}
	}
}
