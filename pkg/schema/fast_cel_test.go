package schema_test

import (
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// gaugeValidator compiles testdata/fast-cel-crd.yaml without the CRD
// validation that would refuse its unbounded cost rules.
func gaugeValidator(t *testing.T) *schema.Validator {
	t.Helper()
	docs, err := manifest.ReadFile("testdata/fast-cel-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(docs[0].Object.Object, crd); err != nil {
		t.Fatal(err)
	}
	v, err := schema.NewValidator(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func gauge(spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.crdguard.dev/v1", "kind": "Gauge",
		"metadata": map[string]any{"name": "g", "namespace": "default"},
		"spec":     spec,
	}}
}

// TestFastCELFallsBack checks each reason the fast CEL check leaves an
// object to kube-apiserver's validator: the check does not accept it, and
// the errors and warnings are kube-apiserver's, byte for byte.
func TestFastCELFallsBack(t *testing.T) {
	v := gaugeValidator(t)
	// Each text costs 9 per character: 900,000 each, 10.8 million in all,
	// below the per-call limit of a million and above the budget of ten.
	texts := make([]any, 12)
	for i := range texts {
		texts[i] = strings.Repeat("a", 100_000)
	}
	tests := []struct {
		name     string
		obj, old *unstructured.Unstructured
		// errors are kube-apiserver's errors, or a part of the only one.
		errors []string
		// warnings are the warnings kube-apiserver records.
		warnings []string
	}{{
		name:   "a false rule",
		obj:    gauge(map[string]any{"level": int64(11)}),
		errors: []string{"spec.level: Invalid value: 11: level must be at most 10"},
	}, {
		name:     "a false rule an update keeps, which ratcheting tolerates",
		obj:      gauge(map[string]any{"level": int64(11), "number": "1"}),
		old:      gauge(map[string]any{"level": int64(11)}),
		warnings: []string{"spec.level: Invalid value: 11: level must be at most 10"},
	}, {
		name:   "a rule with optionalOldSelf on an update",
		obj:    gauge(map[string]any{"label": "a"}),
		old:    gauge(map[string]any{"label": "b"}),
		errors: []string{`spec.label: Invalid value: "a": label is immutable`},
	}, {
		name:   "a runtime error",
		obj:    gauge(map[string]any{"number": "ten"}),
		errors: []string{`spec.number: Invalid value: "string": type conversion error from 'string' to 'int' evaluating rule: int(self) >= 0`},
	}, {
		name:   "the per-call cost limit",
		obj:    gauge(map[string]any{"text": strings.Repeat("a", 200_000)}),
		errors: []string{"no further validation rules will be run due to call cost exceeds limit for rule"},
	}, {
		name:   "the runtime cost budget",
		obj:    gauge(map[string]any{"texts": texts}),
		errors: []string{"validation failed due to running out of cost budget, no further validation rules will be run"},
	}, {
		name:   "a transition rule on an update",
		obj:    gauge(map[string]any{"level": int64(3)}),
		old:    gauge(map[string]any{"level": int64(4)}),
		errors: []string{"spec.level: Invalid value: 3: level may not go down"},
	}, {
		name: "a transition rule on an update that keeps it",
		obj:  gauge(map[string]any{"level": int64(5)}),
		old:  gauge(map[string]any{"level": int64(4)}),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if schema.FastCELAccepts(t.Context(), v, tt.obj, tt.old) {
				t.Error("the fast CEL check accepts it, want it left to kube-apiserver's validator")
			}
			fast, upstream := schema.ValidateBothWays(t.Context(), v, tt.obj, tt.old)
			if !sameOutcome(fast, upstream) {
				t.Errorf("with fast paths %+v, kube-apiserver's validators alone %+v", fast, upstream)
			}
			if !matchErrors(upstream.Errors, tt.errors) {
				t.Errorf("errors %q, want %q", upstream.Errors, tt.errors)
			}
			if !slices.Equal(upstream.Warnings, tt.warnings) {
				t.Errorf("warnings %q, want %q", upstream.Warnings, tt.warnings)
			}
		})
	}
}

// matchErrors tells whether got are want, where a single wanted error
// may be part of the only error.
func matchErrors(got, want []string) bool {
	if len(want) == 1 && len(got) == 1 {
		return strings.Contains(got[0], want[0])
	}
	return slices.Equal(got, want)
}

// TestFastCELAccepts checks that the check answers for what it may: true
// rules on a create, also one with optionalOldSelf (whose oldSelf is
// empty then) and a transition rule (which a create skips), and true
// rules on an update that reaches no rule reading oldSelf.
func TestFastCELAccepts(t *testing.T) {
	v := gaugeValidator(t)
	tests := []struct {
		name     string
		obj, old *unstructured.Unstructured
	}{
		{"a create", gauge(map[string]any{"level": int64(10), "number": "7", "text": "abc", "texts": []any{"a"}, "label": "x"}), nil},
		{"an update without rules reading oldSelf", gauge(map[string]any{"number": "8"}), gauge(map[string]any{"number": "7"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !schema.FastCELAccepts(t.Context(), v, tt.obj, tt.old) {
				t.Error("the fast CEL check leaves it to upstream, want it accepted")
			}
			fast, upstream := schema.ValidateBothWays(t.Context(), v, tt.obj, tt.old)
			if len(fast.Errors)+len(fast.Warnings)+len(upstream.Errors)+len(upstream.Warnings) > 0 {
				t.Errorf("with fast paths %+v, kube-apiserver's validators alone %+v; want nothing", fast, upstream)
			}
		})
	}
}

// TestFastCELLeavesNestedRulesToUpstream checks the construct the check
// does not walk: rules inside allOf, which upstream evaluates at the node
// holding the allOf. Such a kind has no fast CEL check, and its rules'
// errors stay kube-apiserver's.
func TestFastCELLeavesNestedRulesToUpstream(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal([]byte(`
spec:
  group: test.crdguard.dev
  names: {kind: Dial, plural: dials}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              level: {type: integer}
            x-kubernetes-validations:
            - rule: "self.level >= 0"
            allOf:
            - x-kubernetes-validations:
              - rule: "self.level <= 10"
                message: level must be at most 10
`), crd); err != nil {
		t.Fatal(err)
	}
	v, err := schema.NewValidator(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if schema.HasFastCEL(v) {
		t.Error("a fast CEL check for rules inside allOf, want none")
	}
	obj := gauge(map[string]any{"level": int64(11)})
	obj.SetKind("Dial")
	fast, upstream := schema.ValidateBothWays(t.Context(), v, obj, nil)
	want := []string{"spec: Invalid value: level must be at most 10"}
	if !sameOutcome(fast, upstream) || !matchErrors(upstream.Errors, want) {
		t.Errorf("with fast paths %+v, kube-apiserver's validators alone %+v; want errors %q", fast, upstream, want)
	}
}
