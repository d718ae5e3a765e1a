package webhook

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/internal/mysqlexample"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

const (
	approvedWarning = "approved by alice: mysql-safety/safe-updates: consolidating replicas after the migration, ticket DB-1234"
	replicasAudit   = "spec.replicas: Invalid value: 3: may not decrease: was 5; allowed: 5 or more"
	approvalAudit   = "user=alice rules=mysql-safety/safe-updates reason=consolidating replicas after the migration, ticket DB-1234"
)

// withLastApproval replaces the approve annotation by a last-approval
// record, as /mutate leaves the object for /validate.
func withLastApproval(record string) func(*unstructured.Unstructured) {
	return func(obj *unstructured.Unstructured) {
		annotations := obj.GetAnnotations()
		delete(annotations, "crdguard.dev/approve")
		annotations[v1alpha1.LastApprovalAnnotation] = record
		obj.SetAnnotations(annotations)
	}
}

// withExampleApproval puts the approval of approved on an object.
func withExampleApproval(t *testing.T, approved []byte) func(*unstructured.Unstructured) {
	t.Helper()
	var obj unstructured.Unstructured
	if err := obj.UnmarshalJSON(approved); err != nil {
		t.Fatal(err)
	}
	return func(o *unstructured.Unstructured) {
		o.SetAnnotations(map[string]string{"crdguard.dev/approve": obj.GetAnnotations()["crdguard.dev/approve"]})
	}
}

// approveForbidden is the denial of writing the example's approval.
func approveForbidden(user string) metav1.StatusCause {
	return metav1.StatusCause{
		Type: "FieldValueForbidden", Field: "metadata.annotations[crdguard.dev/approve]",
		Message: "[mysql-safety/safe-updates] Forbidden: " + user + " may not approve mysql-safety/safe-updates; approvers: groups dba",
	}
}

const aliceRecord = `{"user":"alice","rules":["mysql-safety/safe-updates"],"reason":"consolidating replicas after the migration, ticket DB-1234","time":"2026-01-02T03:04:05Z"}`

func TestValidator(t *testing.T) {
	old, approved := mysqlexample.JSON(t, "update/old.yaml"), mysqlexample.JSON(t, "update/approved.yaml")
	consumed := edit(t, approved, withLastApproval(aliceRecord))
	oldWithRecord := edit(t, old, func(obj *unstructured.Unstructured) {
		obj.SetAnnotations(map[string]string{v1alpha1.LastApprovalAnnotation: aliceRecord})
	})
	// unsafe.yaml breaks two Deny rules and a Warn rule.
	const unsafeMessage = `MySQLCluster.db.example.io "analytics" is invalid: [spec.resources.limits.memory: [mysql-safety/resources] Invalid value: limits.memory 8Gi is 8.0× requests.memory 1Gi; allowed more than 1.5× and less than 4×, ` +
		`spec.image: [mysql-safety/image-version] Invalid value: "mysql:8.4.0": image tag 8.4.0 does not match spec.version 8.0.36 (compare: TagPrefix); allowed: 8.0.36 or 8.0.36-<variant>]`
	unsafeCauses := []metav1.StatusCause{{
		Type: "FieldValueInvalid", Field: "spec.resources.limits.memory",
		Message: "[mysql-safety/resources] Invalid value: limits.memory 8Gi is 8.0× requests.memory 1Gi; allowed more than 1.5× and less than 4×",
	}, {
		Type: "FieldValueInvalid", Field: "spec.image",
		Message: `[mysql-safety/image-version] Invalid value: "mysql:8.4.0": image tag 8.4.0 does not match spec.version 8.0.36 (compare: TagPrefix); allowed: 8.0.36 or 8.0.36-<variant>`,
	}}
	unsafeWarnings := []string{"[mysql-safety/production-replicas] spec.replicas: Invalid value: 1: production clusters need at least 3 replicas, found 1"}
	safeUpdatesDenial := []metav1.StatusCause{{
		Type: "FieldValueInvalid", Field: "spec.replicas",
		Message: "[mysql-safety/safe-updates] Invalid value: 3: may not decrease: was 5; allowed: 5 or more",
	}}
	tests := []struct {
		name     string
		req      admission.Request
		allowed  bool
		code     int32
		message  string
		causes   []metav1.StatusCause
		warnings []string
		audit    map[string]string
	}{{
		name:    "a valid create",
		req:     request(admissionv1.Create, bob, mysqlexample.JSON(t, "good.yaml"), nil),
		allowed: true, code: http.StatusOK,
	}, {
		name:    "an unsafe create: every Deny finding, the Warn finding as a warning",
		req:     request(admissionv1.Create, bob, mysqlexample.JSON(t, "unsafe.yaml"), nil),
		code:    http.StatusUnprocessableEntity,
		message: unsafeMessage, causes: unsafeCauses, warnings: unsafeWarnings,
	}, {
		name: "an unsafe update: every transition",
		req:  request(admissionv1.Update, alice, mysqlexample.JSON(t, "update/new.yaml"), old),
		code: http.StatusUnprocessableEntity,
		message: `MySQLCluster.db.example.io "prod" is invalid: [spec.replicas: [mysql-safety/safe-updates] Invalid value: 3: may not decrease: was 5; allowed: 5 or more, ` +
			`spec.storage.size: [mysql-safety/safe-updates] Invalid value: "200Gi": may not decrease: was 500Gi; allowed: 500Gi or more, ` +
			`spec.storage.storageClassName: [mysql-safety/safe-updates] Invalid value: "standard": is immutable once set; was "fast", ` +
			`spec.version: [mysql-safety/safe-updates] Invalid value: "8.2.0": skips 1 minor version (8.1): was 8.0.36; allowed: at most 0 skipped, up to 8.1.x, ` +
			`spec.users[1]: [mysql-safety/safe-updates] Forbidden: item with name "reporting" was removed; NoRemoval keeps every item of spec.users]`,
		causes: []metav1.StatusCause{
			{Type: "FieldValueInvalid", Field: "spec.replicas", Message: "[mysql-safety/safe-updates] Invalid value: 3: may not decrease: was 5; allowed: 5 or more"},
			{Type: "FieldValueInvalid", Field: "spec.storage.size", Message: `[mysql-safety/safe-updates] Invalid value: "200Gi": may not decrease: was 500Gi; allowed: 500Gi or more`},
			{Type: "FieldValueInvalid", Field: "spec.storage.storageClassName", Message: `[mysql-safety/safe-updates] Invalid value: "standard": is immutable once set; was "fast"`},
			{Type: "FieldValueInvalid", Field: "spec.version", Message: `[mysql-safety/safe-updates] Invalid value: "8.2.0": skips 1 minor version (8.1): was 8.0.36; allowed: at most 0 skipped, up to 8.1.x`},
			{Type: "FieldValueForbidden", Field: "spec.users[1]", Message: `[mysql-safety/safe-updates] Forbidden: item with name "reporting" was removed; NoRemoval keeps every item of spec.users`},
		},
	}, {
		name:     "an update approved by a dba",
		req:      request(admissionv1.Update, alice, approved, old),
		allowed:  true,
		code:     http.StatusOK,
		warnings: []string{approvedWarning},
		audit:    map[string]string{"approval": approvalAudit, "mysql-safety.safe-updates": replicasAudit},
	}, {
		name: "an update approved by a non-approver",
		req:  request(admissionv1.Update, bob, approved, old),
		code: http.StatusUnprocessableEntity,
		message: `MySQLCluster.db.example.io "prod" is invalid: [spec.replicas: [mysql-safety/safe-updates] Invalid value: 3: may not decrease: was 5; allowed: 5 or more ` +
			`(not approved: bob may not approve policy mysql-safety; approvers: groups dba), ` +
			`metadata.annotations[crdguard.dev/approve]: [mysql-safety/safe-updates] Forbidden: bob may not approve mysql-safety/safe-updates; approvers: groups dba]`,
		causes: []metav1.StatusCause{{
			Type: "FieldValueInvalid", Field: "spec.replicas",
			Message: "[mysql-safety/safe-updates] Invalid value: 3: may not decrease: was 5; allowed: 5 or more (not approved: bob may not approve policy mysql-safety; approvers: groups dba)",
		}, approveForbidden("bob")},
	}, {
		name:     "an approval bob planted on the stored object does not approve alice's update",
		req:      request(admissionv1.Update, alice, approved, edit(t, old, withExampleApproval(t, approved))),
		code:     http.StatusUnprocessableEntity,
		message:  `MySQLCluster.db.example.io "prod" is invalid: spec.replicas: [mysql-safety/safe-updates] Invalid value: 3: may not decrease: was 5; allowed: 5 or more`,
		causes:   safeUpdatesDenial,
		warnings: []string{"ignored: crdguard.dev/approve is unchanged from the stored object; an approval counts only in the request that writes it"},
	}, {
		name:    "a non-approver may not plant an approval",
		req:     request(admissionv1.Update, bob, edit(t, old, withExampleApproval(t, approved)), old),
		code:    http.StatusUnprocessableEntity,
		message: `MySQLCluster.db.example.io "prod" is invalid: metadata.annotations[crdguard.dev/approve]: [mysql-safety/safe-updates] Forbidden: bob may not approve mysql-safety/safe-updates; approvers: groups dba`,
		causes:  []metav1.StatusCause{approveForbidden("bob")},
	}, {
		name:     "an approval /mutate consumed in this request",
		req:      request(admissionv1.Update, alice, consumed, old),
		allowed:  true,
		code:     http.StatusOK,
		warnings: []string{approvedWarning},
		audit:    map[string]string{"approval": approvalAudit, "mysql-safety.safe-updates": replicasAudit},
	}, {
		name:    "an approval consumed by an earlier request lifts nothing",
		req:     request(admissionv1.Update, alice, consumed, oldWithRecord),
		code:    http.StatusUnprocessableEntity,
		message: `MySQLCluster.db.example.io "prod" is invalid: spec.replicas: [mysql-safety/safe-updates] Invalid value: 3: may not decrease: was 5; allowed: 5 or more`,
		causes:  safeUpdatesDenial,
	}, {
		name: "a record naming another user lifts nothing, and bob may not write it",
		req:  request(admissionv1.Update, bob, consumed, old),
		code: http.StatusUnprocessableEntity,
		message: `MySQLCluster.db.example.io "prod" is invalid: [spec.replicas: [mysql-safety/safe-updates] Invalid value: 3: may not decrease: was 5; allowed: 5 or more, ` +
			`metadata.annotations[crdguard.dev/last-approval]: [mysql-safety/safe-updates] Forbidden: it records an approval of mysql-safety/safe-updates by alice, and only crdguard writes it, in alice's own request]`,
		causes: append(slices.Clone(safeUpdatesDenial), metav1.StatusCause{
			Type: "FieldValueForbidden", Field: "metadata.annotations[crdguard.dev/last-approval]",
			Message: "[mysql-safety/safe-updates] Forbidden: it records an approval of mysql-safety/safe-updates by alice, and only crdguard writes it, in alice's own request",
		}),
	}, {
		name:    "a protected delete",
		req:     request(admissionv1.Delete, alice, nil, mysqlexample.JSON(t, "delete/ephemeral.yaml")),
		code:    http.StatusUnprocessableEntity,
		message: `MySQLCluster.db.example.io "scratch" is invalid: <nil>: [mysql-safety/protect-data] Forbidden: deleting this cluster deletes its volumes (reclaimPolicy Delete); a dba approves it`,
		causes: []metav1.StatusCause{{
			Type: "FieldValueForbidden", Field: "<nil>",
			Message: "[mysql-safety/protect-data] Forbidden: deleting this cluster deletes its volumes (reclaimPolicy Delete); a dba approves it",
		}},
	}, {
		name: "a delete approved without crdguard's record",
		req: request(admissionv1.Delete, alice, nil, edit(t, mysqlexample.JSON(t, "delete/ephemeral.yaml"), func(obj *unstructured.Unstructured) {
			obj.SetAnnotations(map[string]string{"crdguard.dev/approve": "protect-data: scratch cluster, ticket DB-99"})
		})),
		code: http.StatusUnprocessableEntity,
		message: `MySQLCluster.db.example.io "scratch" is invalid: <nil>: [mysql-safety/protect-data] Forbidden: deleting this cluster deletes its volumes (reclaimPolicy Delete); a dba approves it ` +
			`(not approved: the stored object's approval has no crdguard.dev/last-approval record of crdguard admitting it for mysql-safety/protect-data; an approval on DELETE now counts only with a record that crdguard's mutating webhook signed (CHANGELOG.md): an approver writes crdguard.dev/approve in an update, which records it, then deletes)`,
		causes: []metav1.StatusCause{{
			Type: "FieldValueForbidden", Field: "<nil>",
			Message: "[mysql-safety/protect-data] Forbidden: deleting this cluster deletes its volumes (reclaimPolicy Delete); a dba approves it " +
				"(not approved: the stored object's approval has no crdguard.dev/last-approval record of crdguard admitting it for mysql-safety/protect-data; an approval on DELETE now counts only with a record that crdguard's mutating webhook signed (CHANGELOG.md): an approver writes crdguard.dev/approve in an update, which records it, then deletes)",
		}},
	}, {
		name:    "a dry run is judged like a real request",
		req:     dryRun(request(admissionv1.Create, bob, mysqlexample.JSON(t, "unsafe.yaml"), nil)),
		code:    http.StatusUnprocessableEntity,
		message: unsafeMessage, causes: unsafeCauses, warnings: unsafeWarnings,
	}, {
		name:    "CONNECT is not evaluated",
		req:     request(admissionv1.Connect, bob, nil, nil),
		allowed: true, code: http.StatusOK,
	}, {
		name:    "an object that is not JSON",
		req:     request(admissionv1.Create, bob, []byte("{"), nil),
		code:    http.StatusBadRequest,
		message: "decoding the admission request's object: unexpected end of JSON input",
	}, {
		name:    "an update without its old object",
		req:     request(admissionv1.Update, bob, mysqlexample.JSON(t, "good.yaml"), nil),
		code:    http.StatusBadRequest,
		message: "the admission request has no oldObject",
	}}
	v := &Validator{Engines: engines(t)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := v.Handle(t.Context(), tt.req)
			assertResponse(t, resp, tt.allowed, tt.code, tt.message, tt.causes)
			if diff := cmp.Diff(tt.warnings, []string(resp.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.audit, resp.AuditAnnotations); diff != "" {
				t.Errorf("audit annotations (-want +got):\n%s", diff)
			}
			if len(resp.Patches) > 0 {
				t.Errorf("/validate returned patches: %v", resp.Patches)
			}
		})
	}
}

func dryRun(req admission.Request) admission.Request {
	req.DryRun = ptr.To(true)
	return req
}

// assertResponse checks the verdict, the status code and message, and the
// causes of a denial exactly.
func assertResponse(t *testing.T, resp admission.Response, allowed bool, code int32, message string, causes []metav1.StatusCause) {
	t.Helper()
	if resp.Allowed != allowed {
		t.Errorf("allowed = %v, want %v (result %+v)", resp.Allowed, allowed, resp.Result)
	}
	if resp.Result == nil {
		t.Fatalf("no result")
	}
	if resp.Result.Code != code {
		t.Errorf("code = %d, want %d", resp.Result.Code, code)
	}
	if resp.Result.Message != message {
		t.Errorf("message:\n got %s\nwant %s", resp.Result.Message, message)
	}
	var got []metav1.StatusCause
	if resp.Result.Details != nil {
		got = resp.Result.Details.Causes
	}
	if diff := cmp.Diff(causes, got); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
	if code == http.StatusUnprocessableEntity && resp.Result.Reason != metav1.StatusReasonInvalid {
		t.Errorf("reason = %q, want Invalid", resp.Result.Reason)
	}
}

func TestValidatorCannotEvaluate(t *testing.T) {
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name    string
		engines *EngineHolder
		ctx     context.Context
		message string
	}{{
		name:    "no engine loaded yet",
		engines: &EngineHolder{},
		ctx:     t.Context(),
		message: ErrNotReady.Error(),
	}, {
		name:    "the API server gave up on the request",
		engines: engines(t),
		ctx:     canceled,
		message: "not evaluated: context canceled",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Validator{Engines: tt.engines}
			resp := v.Handle(tt.ctx, request(admissionv1.Create, bob, mysqlexample.JSON(t, "unsafe.yaml"), nil))
			assertResponse(t, resp, false, http.StatusInternalServerError, tt.message, nil)
		})
	}
}

// TestValidatorManyFindings: an UPDATE that removes 10,000 users breaks
// the example's NoRemoval rule 10,000 times. The answer names a bounded
// number of them, and counts the rest, at every enforcement.
func TestValidatorManyFindings(t *testing.T) {
	const n = 10000
	old := edit(t, mysqlexample.JSON(t, "good.yaml"), func(obj *unstructured.Unstructured) {
		users := make([]any, n)
		for i := range users {
			users[i] = map[string]any{"name": fmt.Sprintf("user-%d", i)}
		}
		if err := unstructured.SetNestedSlice(obj.Object, users, "spec", "users"); err != nil {
			t.Fatal(err)
		}
	})
	removed := edit(t, mysqlexample.JSON(t, "good.yaml"), func(obj *unstructured.Unstructured) {
		unstructured.RemoveNestedField(obj.Object, "spec", "users")
	})
	removedFinding := func(i int) string {
		return fmt.Sprintf(`spec.users[%d]: Forbidden: item with name "user-%d" was removed; NoRemoval keeps every item of spec.users`, i, i)
	}
	req := request(admissionv1.Update, bob, removed, old)

	t.Run("Deny", func(t *testing.T) {
		resp := (&Validator{Engines: engines(t)}).Handle(t.Context(), req)
		if resp.Allowed || resp.Result.Code != http.StatusUnprocessableEntity {
			t.Fatalf("allowed %v, code %d, want a denial", resp.Allowed, resp.Result.Code)
		}
		causes := resp.Result.Details.Causes
		want := metav1.StatusCause{Type: "FieldValueForbidden", Field: "spec.users", Message: "Forbidden: 9991 more findings not shown, 10000 in all"}
		if len(causes) != maxDenialCauses || causes[maxDenialCauses-1] != want {
			t.Errorf("%d causes, the last %+v; want %d, the last %+v", len(causes), causes[len(causes)-1], maxDenialCauses, want)
		}
		if size := jsonSize(t, resp.AdmissionResponse); size >= 1<<20 {
			t.Errorf("the response is %d bytes, want under 1 MiB", size)
		}
	})
	t.Run("Warn", func(t *testing.T) {
		resp := (&Validator{Engines: enforcedAt(t, v1alpha1.Warn)}).Handle(t.Context(), req)
		want := []string{"[mysql-safety/safe-updates] " + removedFinding(0), "9991 more warnings"}
		if !resp.Allowed || len(resp.Warnings) != maxDenialCauses || resp.Warnings[0] != want[0] || resp.Warnings[maxDenialCauses-1] != want[1] {
			t.Errorf("allowed %v with %d warnings, first and last %q; want allowed with %d, first and last %q",
				resp.Allowed, len(resp.Warnings), []string{resp.Warnings[0], resp.Warnings[len(resp.Warnings)-1]}, maxDenialCauses, want)
		}
	})
	t.Run("Audit", func(t *testing.T) {
		resp := (&Validator{Engines: enforcedAt(t, v1alpha1.Audit)}).Handle(t.Context(), req)
		got := resp.AuditAnnotations["mysql-safety.safe-updates"]
		wantStart, wantEnd := removedFinding(0)+"; "+removedFinding(1)+"; ", "; "+removedFinding(9)+"; 9990 more findings"
		if !resp.Allowed || !strings.HasPrefix(got, wantStart) || !strings.HasSuffix(got, wantEnd) || strings.Count(got, "was removed") != 10 {
			t.Errorf("allowed %v, audit annotation %s\nwant allowed, the first 10 findings, then 9990 more findings", resp.Allowed, got)
		}
	})
}

// enforcedAt is the example's engine with its policy at enforcement.
func enforcedAt(t *testing.T, enforcement v1alpha1.Enforcement) *EngineHolder {
	t.Helper()
	policy, err := os.ReadFile(mysqlexample.Path("policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, bytes.Replace(policy, []byte("enforcement: Deny"), []byte("enforcement: "+enforcement), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	engine, _, err := policies.Files{CRDs: []string{mysqlexample.Path("crd.yaml")}, Policies: []string{path}}.Engine(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return NewEngineHolder(engine)
}
