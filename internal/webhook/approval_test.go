package webhook

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/internal/mysqlexample"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

func approvalKey(t *testing.T, secret string) *policies.ApprovalKey {
	t.Helper()
	k, err := policies.NewApprovalKey([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSignedApprovalForDelete follows an approval of a DELETE from the
// update that writes it to the delete it approves: /mutate signs its
// record, /validate admits it, and the delete counts it only under the
// key that signed it.
func TestSignedApprovalForDelete(t *testing.T) {
	key := approvalKey(t, "the webhook's approval key, 32 bytes or more")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	old := mysqlexample.JSON(t, "delete/ephemeral.yaml")
	approving := edit(t, old, func(obj *unstructured.Unstructured) {
		obj.SetAnnotations(map[string]string{v1alpha1.ApproveAnnotation: "protect-data: scratch cluster, ticket DB-99"})
	})
	resp := (&Mutator{Engines: engines(t), Now: func() time.Time { return now }, ApprovalKey: key}).Handle(t.Context(), request(admissionv1.Update, alice, approving, old))
	raw, err := json.Marshal(resp.Patches)
	if err != nil {
		t.Fatal(err)
	}
	stored := applyJSONPatch(t, approving, raw)
	record, err := policies.ParseApprovalRecord(stored.GetAnnotations()[v1alpha1.LastApprovalAnnotation])
	if err != nil || record.Sig == "" {
		t.Fatalf("/mutate wrote %v (%v); want a signed record", stored.GetAnnotations(), err)
	}
	storedJSON, err := stored.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if got := (&Validator{Engines: engines(t), ApprovalKey: key}).Handle(t.Context(), request(admissionv1.Update, alice, storedJSON, old)); !got.Allowed {
		t.Fatalf("/validate denied the record /mutate wrote: %+v", got.Result)
	}

	notApproved := "[mysql-safety/protect-data] Forbidden: deleting this cluster deletes its volumes (reclaimPolicy Delete); a dba approves it (not approved: "
	for _, tt := range []struct {
		name    string
		key     *policies.ApprovalKey
		allowed bool
		message string
	}{
		{"under the key that signed it", key, true, ""},
		{"under another key", approvalKey(t, "another install's approval key, 32 bytes"), false,
			notApproved + "the stored object's crdguard.dev/last-approval record does not carry crdguard's signature for this object; an approval on DELETE now counts only with a record that crdguard's mutating webhook signed (CHANGELOG.md): an approver writes crdguard.dev/approve in an update, which records it, then deletes)"},
		{"without a key", nil, false,
			notApproved + "a stored approval counts only with a crdguard.dev/last-approval record signed with crdguard's approval key, and this evaluation has no key to check it with (crdguard-webhook --approval-key-file); an approval on DELETE now counts only with a record that crdguard's mutating webhook signed (CHANGELOG.md): an approver writes crdguard.dev/approve in an update, which records it, then deletes)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := (&Validator{Engines: engines(t), ApprovalKey: tt.key}).Handle(t.Context(), request(admissionv1.Delete, alice, nil, storedJSON))
			if got.Allowed != tt.allowed {
				t.Fatalf("allowed %v, want %v: %+v", got.Allowed, tt.allowed, got.Result)
			}
			if tt.allowed {
				if want := "approved by alice: mysql-safety/protect-data: scratch cluster, ticket DB-99"; len(got.Warnings) != 1 || got.Warnings[0] != want {
					t.Errorf("warnings %q, want %q", got.Warnings, want)
				}
				if want := "user=alice rules=mysql-safety/protect-data reason=scratch cluster, ticket DB-99"; got.AuditAnnotations["approval"] != want {
					t.Errorf("audit annotations %v, want approval %q", got.AuditAnnotations, want)
				}
				return
			}
			assertCauses(t, got, []metav1.StatusCause{{Type: "FieldValueForbidden", Field: "<nil>", Message: tt.message}})
		})
	}
}

// TestForgedRecordRefused checks that /validate, holding the key, denies a
// record crdguard did not sign, at Deny whatever the rule's enforcement,
// and one planted for a rule no policy has yet.
func TestForgedRecordRefused(t *testing.T) {
	key := approvalKey(t, "the webhook's approval key, 32 bytes or more")
	old := mysqlexample.JSON(t, "good.yaml")
	const recordField = "metadata.annotations[crdguard.dev/last-approval]"
	unsigned := "[approval/record] Forbidden: it does not carry crdguard's signature for this object; only crdguard's mutating webhook writes it"
	for _, tt := range []struct {
		name        string
		annotations map[string]string
		causes      []metav1.StatusCause
	}{{
		name: "alice's record of a Warn rule, written by bob",
		annotations: map[string]string{
			v1alpha1.LastApprovalAnnotation: `{"user":"alice","rules":["mysql-safety/production-replicas"],"reason":"forged","time":"2026-01-02T03:04:05Z"}`,
		},
		causes: []metav1.StatusCause{
			{Type: "FieldValueForbidden", Field: recordField, Message: unsigned},
			{Type: "FieldValueForbidden", Field: recordField, Message: "[mysql-safety/production-replicas] Forbidden: it records an approval of mysql-safety/production-replicas by alice, and only crdguard writes it, in alice's own request"},
		},
	}, {
		name: "an approval and a record planted for a rule no policy has yet",
		annotations: map[string]string{
			v1alpha1.ApproveAnnotation:      "future-rule: planted",
			v1alpha1.LastApprovalAnnotation: `{"user":"alice","rules":["mysql-safety/future-rule"],"reason":"planted","time":"2026-01-02T03:04:05Z"}`,
		},
		causes: []metav1.StatusCause{
			{Type: "FieldValueForbidden", Field: recordField, Message: "[approval/record] Forbidden: it records an approval of mysql-safety/future-rule, which no policy guarding this object has; crdguard records only rules it judged"},
			{Type: "FieldValueForbidden", Field: recordField, Message: unsigned},
		},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			obj := edit(t, old, func(obj *unstructured.Unstructured) {
				annotations := obj.GetAnnotations()
				if annotations == nil {
					annotations = map[string]string{}
				}
				for k, v := range tt.annotations {
					annotations[k] = v
				}
				obj.SetAnnotations(annotations)
			})
			got := (&Validator{Engines: engines(t), ApprovalKey: key}).Handle(t.Context(), request(admissionv1.Update, bob, obj, old))
			assertCauses(t, got, tt.causes)
		})
	}
}

// assertCauses checks that resp is a 422 denial with exactly causes.
func assertCauses(t *testing.T, resp admission.Response, causes []metav1.StatusCause) {
	t.Helper()
	if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusUnprocessableEntity || resp.Result.Details == nil {
		t.Fatalf("got %+v; want a 422 denial", resp.Result)
	}
	if diff := cmp.Diff(causes, resp.Result.Details.Causes); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
}
