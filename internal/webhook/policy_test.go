package webhook

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/internal/mysqlexample"
)

// policyRequest is an AdmissionRequest for a GuardPolicy.
func policyRequest(op admissionv1.Operation, obj *unstructured.Unstructured) admission.Request {
	raw, _ := obj.MarshalJSON()
	gvk := metav1.GroupVersionKind{Group: "crdguard.dev", Version: "v1alpha1", Kind: "GuardPolicy"}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "uid-1", Kind: gvk, RequestKind: &gvk, Name: obj.GetName(), Operation: op,
		Resource: metav1.GroupVersionResource{Group: "crdguard.dev", Version: "v1alpha1", Resource: "guardpolicies"},
		Object:   runtime.RawExtension{Raw: raw},
	}}
}

// TestPolicyValidator: /validate-policy admits a valid policy and denies
// one crdguard cannot compile or the schema rejects, with every field path.
func TestPolicyValidator(t *testing.T) {
	v := &PolicyValidator{Engines: engines(t)}
	if resp := v.Handle(t.Context(), policyRequest(admissionv1.Create, mysqlexample.StoredPolicy(t, "uid-a", 1, nil))); !resp.Allowed {
		t.Errorf("the example policy was denied: %+v", resp.Result)
	}
	bad := mysqlexample.StoredPolicy(t, "uid-a", 1, func(obj *unstructured.Unstructured) {
		mysqlexample.BreakCEL(obj)
		_ = unstructured.SetNestedField(obj.Object, "Sometimes", "spec", "enforcement")
	})
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
		resp := v.Handle(t.Context(), policyRequest(op, bad))
		if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusUnprocessableEntity {
			t.Fatalf("%s of an invalid policy: %+v, want a 422", op, resp.AdmissionResponse)
		}
		var fields []string
		for _, c := range resp.Result.Details.Causes {
			fields = append(fields, c.Field)
		}
		// The schema check runs first and stops there, as in the CLI (and
		// as the API server does, with a note that CEL rules were skipped).
		if !slices.Contains(fields, "spec.enforcement") || slices.Contains(fields, "spec.rules[5].cel.expression") {
			t.Errorf("%s: causes at %q, want spec.enforcement and no CEL compile error", op, fields)
		}
	}
	resp := v.Handle(t.Context(), policyRequest(admissionv1.Create, mysqlexample.StoredPolicy(t, "uid-a", 1, mysqlexample.BreakCEL)))
	if resp.Allowed || resp.Result.Details == nil || len(resp.Result.Details.Causes) != 1 || resp.Result.Details.Causes[0].Field != "spec.rules[5].cel.expression" {
		t.Errorf("uncompilable CEL: %+v, want a 422 at spec.rules[5].cel.expression", resp.Result)
	}
	if resp := v.Handle(t.Context(), policyRequest(admissionv1.Delete, bad)); !resp.Allowed {
		t.Errorf("a DELETE was denied: %+v", resp.Result)
	}
}

// TestPolicyValidatorManyCauses: a policy wrong in 64 places, as many
// rules as the schema allows, is denied with a bounded number of causes,
// the rest counted. The API server's closing note ("some validation rules
// were not checked", at no field) is among the rest, so they share no
// path.
func TestPolicyValidatorManyCauses(t *testing.T) {
	v := &PolicyValidator{Engines: engines(t)}
	bad := mysqlexample.StoredPolicy(t, "uid-a", 1, func(obj *unstructured.Unstructured) {
		rules := make([]any, 64)
		for i := range rules {
			rules[i] = map[string]any{"name": fmt.Sprintf("rule-%d", i), "enforcement": "Sometimes"}
		}
		_ = unstructured.SetNestedSlice(obj.Object, rules, "spec", "rules")
	})
	resp := v.Handle(t.Context(), policyRequest(admissionv1.Create, bad))
	if resp.Allowed || resp.Result == nil || resp.Result.Details == nil {
		t.Fatalf("%+v, want a 422", resp.AdmissionResponse)
	}
	causes := resp.Result.Details.Causes
	want := metav1.StatusCause{Type: "FieldValueForbidden", Message: "Forbidden: 56 more findings not shown, 65 in all"}
	if len(causes) != maxDenialCauses || causes[maxDenialCauses-1] != want {
		t.Errorf("%d causes: %+v\nwant %d, the last %+v", len(causes), causes, maxDenialCauses, want)
	}
	if !strings.HasSuffix(resp.Result.Message, ", : Forbidden: 56 more findings not shown, 65 in all]") {
		t.Errorf("message %s, want it to end with the count", resp.Result.Message)
	}
}
