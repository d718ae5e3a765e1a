package webhook

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/internal/mysqlexample"
)

func TestMutator(t *testing.T) {
	old, approved := mysqlexample.JSON(t, "update/old.yaml"), mysqlexample.JSON(t, "update/approved.yaml")
	defaultCPULimit := jsonpatch.NewOperation("add", "/spec/resources/limits/cpu", "2")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := &Mutator{Engines: engines(t), Now: func() time.Time { return now }}
	for _, tt := range []struct {
		name    string
		op      admissionv1.Operation
		user    string
		object  []byte
		old     []byte
		dryRun  bool
		patches []jsonpatch.Operation
	}{{
		name: "a valid create needs nothing",
		op:   admissionv1.Create, object: mysqlexample.JSON(t, "good.yaml"),
	}, {
		name: "a missing cpu limit is defaulted",
		op:   admissionv1.Create, object: mysqlexample.JSON(t, "unsafe.yaml"),
		patches: []jsonpatch.Operation{defaultCPULimit},
	}, {
		name: "patched on a dry run too",
		op:   admissionv1.Create, object: mysqlexample.JSON(t, "delete/ephemeral.yaml"), dryRun: true,
		patches: []jsonpatch.Operation{defaultCPULimit},
	}, {
		name: "an approval that lifted a denial is consumed and recorded",
		op:   admissionv1.Update, user: "alice", object: approved, old: old,
		patches: []jsonpatch.Operation{
			jsonpatch.NewOperation("remove", "/metadata/annotations/crdguard.dev~1approve", nil),
			jsonpatch.NewOperation("add", "/metadata/annotations/crdguard.dev~1last-approval", aliceRecord),
		},
	}, {
		name: "an approval by a non-approver stays",
		op:   admissionv1.Update, user: "bob", object: approved, old: old,
	}, {
		name: "an approval of a DELETE-only rule stays for the delete, with its record",
		op:   admissionv1.Update, user: "alice",
		object: edit(t, old, func(obj *unstructured.Unstructured) {
			obj.SetAnnotations(map[string]string{"crdguard.dev/approve": "protect-data: retiring the cluster"})
		}),
		old: old,
		patches: []jsonpatch.Operation{
			jsonpatch.NewOperation("add", "/metadata/annotations/crdguard.dev~1last-approval", `{"user":"alice","rules":["mysql-safety/protect-data"],"reason":"retiring the cluster","time":"2026-01-02T03:04:05Z"}`),
		},
	}, {
		name: "deletes are not mutated",
		op:   admissionv1.Delete, user: "alice", old: mysqlexample.JSON(t, "delete/ephemeral.yaml"),
	}} {
		t.Run(tt.name, func(t *testing.T) {
			user := bob
			if tt.user == "alice" {
				user = alice
			}
			req := request(tt.op, user, tt.object, tt.old)
			if tt.dryRun {
				req = dryRun(req)
			}
			resp := m.Handle(t.Context(), req)
			if !resp.Allowed {
				t.Fatalf("denied: %+v", resp.Result)
			}
			if diff := cmp.Diff(tt.patches, resp.Patches); diff != "" {
				t.Errorf("patches (-want +got):\n%s", diff)
			}
			if len(resp.Warnings) > 0 || len(resp.AuditAnnotations) > 0 {
				t.Errorf("/mutate reported warnings %q or audit annotations %v: those are /validate's", resp.Warnings, resp.AuditAnnotations)
			}
		})
	}
}

func TestMutatorCannotEvaluate(t *testing.T) {
	m := &Mutator{Engines: &EngineHolder{}}
	resp := m.Handle(t.Context(), request(admissionv1.Create, bob, mysqlexample.JSON(t, "unsafe.yaml"), nil))
	assertResponse(t, resp, false, http.StatusInternalServerError, ErrNotReady.Error(), nil)

	resp = m.Handle(t.Context(), request(admissionv1.Create, bob, []byte(`[]`), nil))
	assertResponse(t, resp, false, http.StatusBadRequest, "decoding the admission request's object: json: cannot unmarshal array into Go value of type map[string]interface {}", nil)
}

// TestApprovalRoundTrip checks that the record /mutate writes is the one
// /validate honours.
func TestApprovalRoundTrip(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	old, approved := mysqlexample.JSON(t, "update/old.yaml"), mysqlexample.JSON(t, "update/approved.yaml")
	resp := (&Mutator{Engines: engines(t), Now: func() time.Time { return now }}).Handle(t.Context(), request(admissionv1.Update, alice, approved, old))
	raw, err := json.Marshal(resp.Patches)
	if err != nil {
		t.Fatal(err)
	}
	mutated := applyJSONPatch(t, approved, raw)
	if _, ok := mutated.GetAnnotations()["crdguard.dev/approve"]; ok {
		t.Fatalf("approve annotation not stripped: %v", mutated.GetAnnotations())
	}
	data, err := mutated.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got := (&Validator{Engines: engines(t)}).Handle(t.Context(), request(admissionv1.Update, alice, data, old))
	if !got.Allowed {
		t.Fatalf("the mutated request was denied: %+v", got.Result)
	}
}
