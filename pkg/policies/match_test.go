package policies

import (
	"errors"
	"slices"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// TestNamespaceLabelsOnlyWhereTheSelectorDecides checks that unknown
// namespace labels are an error only for a policy that matches the
// request's operation, or that judges the approval the request carries:
// a DELETE-only policy must not make every CREATE and UPDATE an error.
func TestNamespaceLabelsOnlyWhereTheSelectorDecides(t *testing.T) {
	deleteOnly := mysqlPolicy(v1alpha1.Rule{Name: "protect", Deletion: &v1alpha1.DeletionRule{}})
	deleteOnly.Name = "protect-prod"
	deleteOnly.Spec.Match.Operations = []v1alpha1.Operation{v1alpha1.Delete}
	deleteOnly.Spec.Match.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	deleteOnly.Spec.Approvers = &v1alpha1.Approvers{Groups: []string{"dba"}}
	engine, err := NewEngine(nil, deleteOnly)
	if err != nil {
		t.Fatal(err)
	}

	cluster := func(annotations map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "db.example.io/v1", "kind": "MySQLCluster",
			"metadata": map[string]any{"name": "prod", "namespace": "shop"},
			"spec":     map[string]any{"replicas": int64(3)},
		}}
		u.SetAnnotations(annotations)
		return u
	}
	approved := map[string]string{v1alpha1.ApproveAnnotation: "protect: decommissioned"}
	const unknown = "the labels of namespace shop are unknown, and GuardPolicy protect-prod selects namespaces by label"
	tests := []struct {
		name     string
		req      Request
		wantErr  string
		policies []string
	}{{
		name: "CREATE: the selector decides nothing",
		req:  Request{Operation: v1alpha1.Create, Object: cluster(nil)},
	}, {
		name: "UPDATE: the selector decides nothing",
		req:  Request{Operation: v1alpha1.Update, Object: cluster(nil), OldObject: cluster(nil)},
	}, {
		name: "UPDATE keeping an approval it does not write",
		req:  Request{Operation: v1alpha1.Update, Object: cluster(approved), OldObject: cluster(approved)},
	}, {
		name:    "UPDATE writing an approval a later DELETE reads",
		req:     Request{Operation: v1alpha1.Update, Object: cluster(approved), OldObject: cluster(nil), UserInfo: authenticationv1.UserInfo{Username: "alice", Groups: []string{"dba"}}},
		wantErr: unknown + ": it matches only DELETE, and judges the approval (crdguard.dev/approve or crdguard.dev/last-approval) this request carries",
	}, {
		name:    "CREATE writing an approval record",
		req:     Request{Operation: v1alpha1.Create, Object: cluster(map[string]string{v1alpha1.LastApprovalAnnotation: `{"user":"alice"}`})},
		wantErr: unknown + ": it matches only DELETE, and judges the approval (crdguard.dev/approve or crdguard.dev/last-approval) this request carries",
	}, {
		name:    "DELETE: the policy applies",
		req:     Request{Operation: v1alpha1.Delete, OldObject: cluster(nil)},
		wantErr: unknown,
	}, {
		name:     "DELETE with the labels given",
		req:      Request{Operation: v1alpha1.Delete, OldObject: cluster(nil), NamespaceLabels: map[string]string{"env": "prod"}},
		policies: []string{"protect-prod"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Namespace = "shop"
			res, err := engine.Evaluate(t.Context(), tt.req)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
				if tt.wantErr != "" && !errors.As(err, new(*UnknownNamespaceError)) {
					t.Errorf("error %v is no *UnknownNamespaceError", err)
				}
			}
			if gotErr != tt.wantErr {
				t.Fatalf("error %q, want %q", gotErr, tt.wantErr)
			}
			if !slices.Equal(res.Policies, tt.policies) {
				t.Errorf("policies %v, want %v", res.Policies, tt.policies)
			}
		})
	}
}
