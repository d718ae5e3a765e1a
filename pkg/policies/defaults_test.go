package policies

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestDefaults(t *testing.T) { runCases(t, "defaults") }

func TestDefaultsCompileErrors(t *testing.T) {
	q := resource.MustParse
	tests := []struct {
		name string
		rule v1alpha1.DefaultsRule
		want []string
	}{{
		name: "no paths, no limits",
		rule: v1alpha1.DefaultsRule{},
		want: []string{
			"spec.rules[0].defaults.paths: Required value: paths or preset is required",
			"spec.rules[0].defaults.limits: Required value: at least one resource to default",
		},
	}, {
		name: "bad path, multiplier below 1, duplicate and empty resources",
		rule: v1alpha1.DefaultsRule{
			Paths: []string{"spec.resources", "spec..x"},
			Limits: []v1alpha1.LimitDefault{
				{Resource: "memory", RequestMultiplier: q("0.5")},
				{Resource: "memory", RequestMultiplier: q("2")},
				{RequestMultiplier: q("1")},
			},
		},
		want: []string{
			`spec.rules[0].defaults.paths[1]: Invalid value: "spec..x": empty field name at ".x"`,
			`spec.rules[0].defaults.limits[0].requestMultiplier: Invalid value: "500m": must be at least 1: a limit may not be less than its request`,
			`spec.rules[0].defaults.limits[1].resource: Duplicate value: "memory"`,
			`spec.rules[0].defaults.limits[2].resource: Required value`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule := tt.rule
			assertPolicyErrors(t, mysqlPolicy(v1alpha1.Rule{Name: "fill", Defaults: &rule}), nil, tt.want)
		})
	}
}
