package webhook

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
)

func TestDenial(t *testing.T) {
	gk := schema.GroupKind{Group: "db.example.io", Kind: "MySQLCluster"}
	sizeRule := report.Finding{
		Field: "spec.size", Type: "FieldValueInvalid", Message: "Invalid value: 8: at most 5",
		Policy: "sizes", Rule: "max", Enforcement: v1alpha1.Deny,
	}
	schemaFinding := report.Finding{
		Field: "spec.size", Type: "FieldValueInvalid", Message: "Invalid value: 8: spec.size in body should be less than or equal to 5",
		Policy: policies.SchemaPolicy, Rule: "maximum", Enforcement: v1alpha1.Deny,
	}
	warned := sizeRule
	warned.Rule, warned.Enforcement = "soft-max", v1alpha1.Warn
	otherRule := sizeRule
	otherRule.Rule = "hard-max"

	t.Run("schema findings are the API server's own Invalid status", func(t *testing.T) {
		twice := &policies.Result{Violations: []report.Finding{schemaFinding, schemaFinding}}
		bad := field.Invalid(field.NewPath("spec", "size"), int64(8), "spec.size in body should be less than or equal to 5")
		want := apierrors.NewInvalid(gk, "prod", field.ErrorList{bad, bad}).Status()
		if diff := cmp.Diff(want, denial(gk, "prod", twice)); diff != "" {
			t.Errorf("status (-want +got):\n%s", diff)
		}
	})

	t.Run("GuardPolicy findings name their rule, Warn findings are left out", func(t *testing.T) {
		res := &policies.Result{Violations: []report.Finding{schemaFinding, sizeRule, warned, otherRule}}
		got := denial(gk, "prod", res)
		want := `MySQLCluster.db.example.io "prod" is invalid: [spec.size: Invalid value: 8: spec.size in body should be less than or equal to 5, ` +
			`spec.size: [sizes/max] Invalid value: 8: at most 5, spec.size: [sizes/hard-max] Invalid value: 8: at most 5]`
		if got.Message != want {
			t.Errorf("message:\n got %s\nwant %s", got.Message, want)
		}
		wantCauses := []metav1.StatusCause{
			{Type: "FieldValueInvalid", Field: "spec.size", Message: "Invalid value: 8: spec.size in body should be less than or equal to 5"},
			{Type: "FieldValueInvalid", Field: "spec.size", Message: "[sizes/max] Invalid value: 8: at most 5"},
			{Type: "FieldValueInvalid", Field: "spec.size", Message: "[sizes/hard-max] Invalid value: 8: at most 5"},
		}
		if diff := cmp.Diff(wantCauses, got.Details.Causes); diff != "" {
			t.Errorf("causes (-want +got):\n%s", diff)
		}
		if got.Code != http.StatusUnprocessableEntity || got.Reason != metav1.StatusReasonInvalid || got.Details.Kind != "MySQLCluster" || got.Details.Name != "prod" {
			t.Errorf("status %d %s of %s %q, want 422 Invalid of MySQLCluster \"prod\"", got.Code, got.Reason, got.Details.Kind, got.Details.Name)
		}
	})
}
