package webhook

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
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

// removedUsers are the findings of an UPDATE that removes n users under
// the example's NoRemoval rule, at enforcement.
func removedUsers(n int, enforcement v1alpha1.Enforcement) []report.Finding {
	found := make([]report.Finding, n)
	for i := range found {
		found[i] = report.Finding{
			Field: fmt.Sprintf("spec.users[%d]", i), Type: "FieldValueForbidden",
			Message: fmt.Sprintf(`Forbidden: item with name "user-%d" was removed; NoRemoval keeps every item of spec.users`, i),
			Policy:  "mysql-safety", Rule: "safe-updates", Enforcement: enforcement,
		}
	}
	return found
}

func TestDenialManyCauses(t *testing.T) {
	gk := schema.GroupKind{Group: "db.example.io", Kind: "MySQLCluster"}
	got := denial(gk, "prod", &policies.Result{Violations: removedUsers(10000, v1alpha1.Deny)})

	if len(got.Details.Causes) != maxDenialCauses {
		t.Fatalf("%d causes, want %d", len(got.Details.Causes), maxDenialCauses)
	}
	wantNinth := metav1.StatusCause{
		Type: "FieldValueForbidden", Field: "spec.users[8]",
		Message: `[mysql-safety/safe-updates] Forbidden: item with name "user-8" was removed; NoRemoval keeps every item of spec.users`,
	}
	wantLast := metav1.StatusCause{Type: "FieldValueForbidden", Field: "spec.users", Message: "Forbidden: 9991 more findings not shown, 10000 in all"}
	if diff := cmp.Diff([]metav1.StatusCause{wantNinth, wantLast}, got.Details.Causes[8:]); diff != "" {
		t.Errorf("last causes (-want +got):\n%s", diff)
	}
	wantEnd := `spec.users[8]: [mysql-safety/safe-updates] Forbidden: item with name "user-8" was removed; NoRemoval keeps every item of spec.users, ` +
		`spec.users: Forbidden: 9991 more findings not shown, 10000 in all]`
	if !strings.HasSuffix(got.Message, wantEnd) {
		t.Errorf("message:\n got %s\nwant it to end with %s", got.Message, wantEnd)
	}
	if size := jsonSize(t, got); size >= 1<<20 {
		t.Errorf("the status is %d bytes, want under 1 MiB", size)
	}
}

func TestDenialBoundsLongMessages(t *testing.T) {
	gk := schema.GroupKind{Group: "db.example.io", Kind: "MySQLCluster"}
	long := strings.Repeat("x", 100000)
	res := &policies.Result{Violations: []report.Finding{{
		Field: "spec.image", Type: "FieldValueInvalid", Message: `Invalid value: "` + long + `": not an image reference`,
		Policy: "mysql-safety", Rule: "image-version", Enforcement: v1alpha1.Deny,
	}}}
	got := denial(gk, "prod", res)
	want := `[mysql-safety/image-version] Invalid value: "` + long[:maxLoggedValue-len(`Invalid value: "`)] + `…(100041 bytes)`
	if len(got.Details.Causes) != 1 || got.Details.Causes[0].Message != want {
		t.Errorf("causes %+v, want one with message %s", got.Details.Causes, want)
	}
	if !strings.HasSuffix(got.Message, "…(100041 bytes)") {
		t.Errorf("message %s, want the cause's bounded message", got.Message)
	}
}

func TestCommonPath(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"spec.users[3]", "spec.users[7].name", "spec.users"},
		{"spec.users[3]", "spec.users[3]", "spec.users[3]"},
		{"spec.users[3].name", "spec.users[3]", "spec.users[3]"},
		{"spec.users[10]", "spec.users[1]", "spec.users"},
		{"spec.a", "spec.ab", "spec"},
		{"spec.x.y", "spec.x[0]", "spec.x"},
		{"spec.a", "metadata.a", ""},
		{"metadata.labels[app.kubernetes.io/name]", "metadata.labels[app.kubernetes.io/part-of]", "metadata.labels"},
		{"", "spec", ""},
	}
	for _, tt := range tests {
		if got := commonPath(tt.a, tt.b); got != tt.want {
			t.Errorf("commonPath(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
		if got := commonPath(tt.b, tt.a); got != tt.want {
			t.Errorf("commonPath(%q, %q) = %q, want %q", tt.b, tt.a, got, tt.want)
		}
	}
}

// jsonSize is the size of v encoded as the webhook sends it.
func jsonSize(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}
