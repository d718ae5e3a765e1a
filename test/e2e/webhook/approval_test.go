package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/internal/localcluster"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

const (
	bobMayNotApprove = "metadata.annotations[crdguard.dev/approve]: [mysql-safety/safe-updates] Forbidden: bob may not approve mysql-safety/safe-updates; approvers: groups dba"
	shrinkDenied     = "spec.replicas: [mysql-safety/safe-updates] Invalid value: 3: may not decrease: was 5; allowed: 5 or more"
	staleApproval    = "Warning: ignored: crdguard.dev/approve is unchanged from the stored object; an approval counts only in the request that writes it"
)

// TestPlantedApproval: an approval is the approver's own act. bob may not
// plant one, nor forge crdguard's record of one; an approval that lifted
// nothing stays with a warning and approves no later update.
func TestPlantedApproval(t *testing.T) {
	ns := namespace(t)
	old := createExample(t, "update/old.yaml", ns)
	name := old.GetName()

	res := runKubectl(t, "bob", "annotate", "-n", ns, "mysqlcluster", name, "crdguard.dev/approve=safe-updates: planted by bob")
	if res.ok || !strings.Contains(res.stderr, bobMayNotApprove) {
		t.Fatalf("bob planting an approval:\n%s", res)
	}
	forged := `crdguard.dev/last-approval={"user":"alice","rules":["mysql-safety/safe-updates"],"reason":"forged","time":"2026-01-02T03:04:05Z"}`
	res = runKubectl(t, "bob", "annotate", "-n", ns, "mysqlcluster", name, forged)
	if want := "metadata.annotations[crdguard.dev/last-approval]: [mysql-safety/safe-updates] Forbidden: it records an approval of mysql-safety/safe-updates by alice, and only crdguard writes it, in alice's own request"; res.ok || !strings.Contains(res.stderr, want) {
		t.Fatalf("bob forging a record:\n%s", res)
	}
	if annotations := stored(t, old).GetAnnotations(); len(annotations) != 0 {
		t.Fatalf("stored annotations after bob's attempts: %v", annotations)
	}
	shrink := []string{"patch", "-n", ns, "mysqlcluster", name, "--type=merge", "-p", `{"spec":{"replicas":3}}`}
	if res := runKubectl(t, "alice", shrink...); res.ok || !strings.Contains(res.stderr, shrinkDenied) {
		t.Fatalf("alice's unapproved shrink:\n%s", res)
	}

	// alice's approval that lifts nothing stays, with a warning and
	// crdguard's record; her later shrink is not approved by it.
	res = runKubectl(t, "alice", "annotate", "-n", ns, "mysqlcluster", name, "crdguard.dev/approve=safe-updates: for later")
	if want := "Warning: crdguard.dev/approve lifted nothing in this request; it stays on the object, where it can approve a DELETE (mysql-safety/safe-updates); remove it if it is not meant for one"; !res.ok || !strings.Contains(res.stderr, want) {
		t.Fatalf("alice's approval that lifts nothing:\n%s", res)
	}
	if record := approvalRecord(t, stored(t, old)); record.User != "alice" || record.Reason != "for later" {
		t.Errorf("record of the approval that lifted nothing: %+v", record)
	}
	res = runKubectl(t, "alice", shrink...)
	if res.ok || !strings.Contains(res.stderr, shrinkDenied) || !strings.Contains(res.stderr, staleApproval) {
		t.Fatalf("alice's shrink with her earlier approval on the object:\n%s", res)
	}
}

// TestApprovalOnDelete: a DELETE may use the approval on the stored object,
// from an approver, and only with the record crdguard wrote when it
// admitted it from an approver. The update that writes it lifts nothing,
// so it stays for the delete.
func TestApprovalOnDelete(t *testing.T) {
	ns := namespace(t)
	scratch := createExample(t, "delete/ephemeral.yaml", ns)
	name := scratch.GetName()
	res := runKubectl(t, "alice", "annotate", "-n", ns, "mysqlcluster", name, "crdguard.dev/approve=protect-data: scratch cluster, ticket DB-99")
	if !res.ok {
		t.Fatalf("kubectl annotate:\n%s", res)
	}
	record := approvalRecord(t, stored(t, scratch))
	if record.User != "alice" || !slices.Equal(record.Rules, []string{"mysql-safety/protect-data"}) || record.Reason != "scratch cluster, ticket DB-99" {
		t.Fatalf("record of the DELETE approval: %+v", record)
	}
	if res := runKubectl(t, "bob", "delete", "-n", ns, "mysqlcluster", name); res.ok {
		t.Fatalf("a non-approver deleted with a dba's approval on the object:\n%s", res)
	}

	// Without the record, the approval on the stored object approves nothing.
	if res := runKubectl(t, "bob", "annotate", "-n", ns, "mysqlcluster", name, "crdguard.dev/last-approval-"); !res.ok {
		t.Fatalf("removing the record:\n%s", res)
	}
	res = runKubectl(t, "alice", "delete", "-n", ns, "mysqlcluster", name)
	if want := "(not approved: the stored object's approval has no crdguard.dev/last-approval record of crdguard admitting it for mysql-safety/protect-data; an approval on DELETE now counts only with a record that crdguard's mutating webhook signed (CHANGELOG.md): an approver writes crdguard.dev/approve in an update, which records it, then deletes)"; res.ok || !strings.Contains(res.stderr, want) {
		t.Fatalf("a delete approved without crdguard's record:\n%s", res)
	}

	res = runKubectl(t, "alice", "annotate", "--overwrite", "-n", ns, "mysqlcluster", name, "crdguard.dev/approve=protect-data: scratch cluster, ticket DB-100")
	if !res.ok {
		t.Fatalf("kubectl annotate --overwrite:\n%s", res)
	}
	res = runKubectl(t, "alice", "delete", "-n", ns, "mysqlcluster", name)
	if !res.ok || !strings.Contains(res.stderr, "Warning: approved by alice: mysql-safety/protect-data: scratch cluster, ticket DB-100") {
		t.Fatalf("the approved delete:\n%s", res)
	}
}

// TestApplyWithApproval: kubectl apply of a file that still holds a used
// approval puts it back on the object (its last-applied configuration has
// it, the object does not), so each apply is a new approval: denied to
// anyone else, and from an approver kept with a warning when it lifts
// nothing.
func TestApplyWithApproval(t *testing.T) {
	ns := namespace(t)
	old, approved := writeObject(t, example(t, "update/old.yaml", ns)), writeObject(t, example(t, "update/approved.yaml", ns))
	if res := runKubectl(t, "bob", "apply", "-f", old); !res.ok {
		t.Fatalf("kubectl apply of update/old.yaml:\n%s", res)
	}
	if res := runKubectl(t, "alice", "apply", "-f", approved); !res.ok || !strings.Contains(res.stderr, "Warning: approved by alice: mysql-safety/safe-updates") {
		t.Fatalf("alice's apply of update/approved.yaml:\n%s", res)
	}
	obj := example(t, "update/old.yaml", ns)
	if _, ok := stored(t, obj).GetAnnotations()[v1alpha1.ApproveAnnotation]; ok {
		t.Fatal("the approval that lifted the shrink was not stripped")
	}

	if res := runKubectl(t, "bob", "apply", "-f", approved); res.ok || !strings.Contains(res.stderr, bobMayNotApprove) {
		t.Fatalf("bob's apply of the file with the used approval:\n%s", res)
	}
	res := runKubectl(t, "alice", "apply", "-f", approved)
	if !res.ok || !strings.Contains(res.stderr, "Warning: crdguard.dev/approve lifted nothing in this request") {
		t.Fatalf("alice's second apply of update/approved.yaml:\n%s", res)
	}
	if _, ok := stored(t, obj).GetAnnotations()[v1alpha1.ApproveAnnotation]; !ok {
		t.Error("the approval that lifted nothing was not kept")
	}
}

// approvalRecord decodes the record crdguard keeps on a stored object.
func approvalRecord(t *testing.T, obj *unstructured.Unstructured) policies.ApprovalRecord {
	t.Helper()
	var record policies.ApprovalRecord
	if err := json.Unmarshal([]byte(obj.GetAnnotations()[v1alpha1.LastApprovalAnnotation]), &record); err != nil {
		t.Fatalf("%s: %v", v1alpha1.LastApprovalAnnotation, err)
	}
	return record
}

// TestApprovalPlantedBeforePolicy: bob plants an approval and a forged
// record of alice's for a rule no policy has yet, waiting for a policy
// that protects the object with it. crdguard refuses the record, which
// only its /mutate writes, signed; once the policy exists, alice's delete
// is not approved by what bob wrote.
func TestApprovalPlantedBeforePolicy(t *testing.T) {
	ns := namespace(t)
	const label = "crdguard.dev/e2e-planted"
	obj := example(t, "good.yaml", ns)
	obj.SetLabels(map[string]string{label: ns})
	if err := cluster.client.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	policy := localcluster.NamespaceName("planted-"+ns, 63)
	id := policy + "/keep"

	forged := fmt.Sprintf(`crdguard.dev/last-approval={"user":"alice","rules":[%q],"reason":"planted by bob","time":"2026-01-02T03:04:05Z"}`, id)
	res := runKubectl(t, "bob", "annotate", "-n", ns, "mysqlcluster", obj.GetName(), "crdguard.dev/approve=keep: planted by bob", forged)
	for _, want := range []string{
		"metadata.annotations[crdguard.dev/last-approval]: [approval/record] Forbidden: it records an approval of " + id + ", which no policy guarding this object has",
		"metadata.annotations[crdguard.dev/last-approval]: [approval/record] Forbidden: it does not carry crdguard's signature for this object",
	} {
		if res.ok || !strings.Contains(res.stderr, want) {
			t.Fatalf("bob planting an approval and a record for a rule no policy has; want %q:\n%s", want, res)
		}
	}
	if annotations := stored(t, obj).GetAnnotations(); len(annotations) != 0 {
		t.Fatalf("stored annotations after bob's attempt: %v", annotations)
	}

	gp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crdguard.dev/v1alpha1", "kind": "GuardPolicy",
		"metadata": map[string]any{"name": policy},
		"spec": map[string]any{
			"match": map[string]any{
				"resources":      []any{map[string]any{"group": "db.example.io", "kinds": []any{"MySQLCluster"}}},
				"objectSelector": map[string]any{"matchLabels": map[string]any{label: ns}},
			},
			"approvers": map[string]any{"users": []any{"alice"}},
			"rules":     []any{map[string]any{"name": "keep", "deletion": map[string]any{"message": "kept until alice approves"}}},
		},
	}}
	if err := cluster.client.Create(t.Context(), gp); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.client.Delete(context.Background(), gp); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s: %v", policy, err)
		}
	})
	denied := "[" + id + "] Forbidden: kept until alice approves"
	eventually(t, "the new policy denies the delete", func(ctx context.Context) (bool, string) {
		res := runKubectlContext(ctx, t, "alice", "delete", "--dry-run=server", "-n", ns, "mysqlcluster", obj.GetName())
		return !res.ok && strings.Contains(res.stderr, denied), res.String()
	})
	res = runKubectl(t, "alice", "delete", "-n", ns, "mysqlcluster", obj.GetName())
	if res.ok || !strings.Contains(res.stderr, denied) || strings.Contains(res.stderr, "approved by") {
		t.Fatalf("alice's delete after bob's planted approval:\n%s", res)
	}
}
