package webhook

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// Field paths and messages of the example's findings, as kubectl prints a
// denial's causes: "field: [policy/rule] message".
const (
	memoryRatio = "spec.resources.limits.memory: [mysql-safety/resources] Invalid value: limits.memory 8Gi is 8.0× requests.memory 1Gi; allowed more than 1.5× and less than 4×"
	imageTag    = `spec.image: [mysql-safety/image-version] Invalid value: "mysql:8.4.0": image tag 8.4.0 does not match spec.version 8.0.36 (compare: TagPrefix); allowed: 8.0.36 or 8.0.36-<variant>`
	fewReplicas = "Warning: [mysql-safety/production-replicas] spec.replicas: Invalid value: 1: production clusters need at least 3 replicas, found 1"
	protectData = "<nil>: [mysql-safety/protect-data] Forbidden: deleting this cluster deletes its volumes (reclaimPolicy Delete); a dba approves it"
)

// unsafeUpdate are the causes of update/new.yaml over update/old.yaml.
var unsafeUpdate = []string{
	"spec.replicas: [mysql-safety/safe-updates] Invalid value: 3: may not decrease: was 5; allowed: 5 or more",
	`spec.storage.size: [mysql-safety/safe-updates] Invalid value: "200Gi": may not decrease: was 500Gi; allowed: 500Gi or more`,
	`spec.storage.storageClassName: [mysql-safety/safe-updates] Invalid value: "standard": is immutable once set; was "fast"`,
	`spec.version: [mysql-safety/safe-updates] Invalid value: "8.2.0": skips 1 minor version (8.1): was 8.0.36; allowed: at most 0 skipped, up to 8.1.x`,
	`spec.users[1]: [mysql-safety/safe-updates] Forbidden: item with name "reporting" was removed; NoRemoval keeps every item of spec.users`,
}

// causes are the "field: message" of an Invalid error, as kubectl prints
// them from the status details.
func causes(t *testing.T, err error) []string {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) || !apierrors.IsInvalid(err) {
		t.Fatalf("want an Invalid error, got %v", err)
	}
	var out []string
	for _, c := range status.Status().Details.Causes {
		out = append(out, c.Field+": "+c.Message)
	}
	return out
}

func TestCreate(t *testing.T) {
	ns := namespace(t)

	createExample(t, "good.yaml", ns)

	unsafe := example(t, "unsafe.yaml", ns)
	err := cluster.client.Create(t.Context(), unsafe)
	if got, want := causes(t, err), []string{memoryRatio, imageTag}; !slices.Equal(got, want) {
		t.Errorf("causes of unsafe.yaml:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(err.Error(), `admission webhook "`+validatingName+`" denied the request`) {
		t.Errorf("the denial does not name the webhook: %v", err)
	}
	if stored(t, unsafe) != nil {
		t.Error("unsafe.yaml was stored")
	}
}

// TestKubectlDryRun uses the real kubectl: a denial shows every field
// path with the policy and rule that denied it and exits non-zero, a Warn
// finding is a Warning: line, and neither a denied nor an accepted dry run
// stores anything.
func TestKubectlDryRun(t *testing.T) {
	ns := namespace(t)

	unsafe := example(t, "unsafe.yaml", ns)
	res := runKubectl(t, "bob", "apply", "--dry-run=server", "-f", writeObject(t, unsafe))
	if res.ok {
		t.Fatalf("kubectl apply --dry-run=server of unsafe.yaml succeeded:\n%s", res)
	}
	// Every line kubectl prints: the warning as it arrives, then the
	// Invalid status's header and one line per cause.
	want := []string{fewReplicas, `The MySQLCluster "analytics" is invalid: `, "* " + memoryRatio, "* " + imageTag}
	if got := strings.Split(strings.TrimSuffix(res.stdout+res.stderr, "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("kubectl apply --dry-run=server of unsafe.yaml printed\n%q\nwant\n%q", got, want)
	}
	if stored(t, unsafe) != nil {
		t.Error("a denied dry run stored the object")
	}

	good := example(t, "good.yaml", ns)
	res = runKubectl(t, "bob", "apply", "--dry-run=server", "-f", writeObject(t, good))
	if !res.ok || !strings.Contains(res.stdout, "mysqlcluster.db.example.io/prod created (server dry run)") {
		t.Fatalf("kubectl apply --dry-run=server of good.yaml:\n%s", res)
	}
	if stored(t, good) != nil {
		t.Error("an accepted dry run stored the object")
	}
}

// TestDefaultsAndDelete: the default cpu limit is on the stored object, and
// deleting a cluster whose volumes go with it is denied (a dba's approval
// of it: TestApprovalOnDelete).
func TestDefaultsAndDelete(t *testing.T) {
	ns := namespace(t)
	scratch := createExample(t, "delete/ephemeral.yaml", ns)
	if cpu, _, _ := unstructuredString(stored(t, scratch), "spec", "resources", "limits", "cpu"); cpu != "2" {
		t.Errorf("stored spec.resources.limits.cpu = %q, want the default 2 (twice the request)", cpu)
	}

	res := runKubectl(t, "bob", "delete", "-f", writeObject(t, scratch))
	if res.ok || !strings.Contains(res.stderr, protectData) {
		t.Fatalf("kubectl delete of delete/ephemeral.yaml:\n%s", res)
	}
	if stored(t, scratch) == nil {
		t.Fatal("the protected cluster was deleted")
	}
}

// TestUpdate: an unsafe update is denied with every transition; an approval
// by a non-approver is denied; by a dba it is accepted, stripped and
// recorded, and it does not approve the next update.
func TestUpdate(t *testing.T) {
	ns := namespace(t)
	old := createExample(t, "update/old.yaml", ns)

	res := runKubectl(t, "alice", "replace", "-f", writeObject(t, example(t, "update/new.yaml", ns)))
	if res.ok {
		t.Fatalf("the unsafe update was accepted:\n%s", res)
	}
	for _, c := range unsafeUpdate {
		if !strings.Contains(res.stderr, "* "+c) {
			t.Errorf("kubectl output lacks %q:\n%s", c, res)
		}
	}

	approved := writeObject(t, example(t, "update/approved.yaml", ns))
	res = runKubectl(t, "bob", "replace", "-f", approved)
	if res.ok || !strings.Contains(res.stderr, "(not approved: bob may not approve policy mysql-safety; approvers: groups dba)") {
		t.Fatalf("the update approved by bob:\n%s", res)
	}

	res = runKubectl(t, "alice", "replace", "-f", approved)
	if !res.ok {
		t.Fatalf("the update approved by alice was denied:\n%s", res)
	}
	got := stored(t, old)
	annotations := got.GetAnnotations()
	if _, ok := annotations["crdguard.dev/approve"]; ok {
		t.Errorf("the approval was not stripped: %v", annotations)
	}
	var record struct {
		User   string   `json:"user"`
		Rules  []string `json:"rules"`
		Reason string   `json:"reason"`
		Time   string   `json:"time"`
	}
	if err := json.Unmarshal([]byte(annotations[v1alpha1.LastApprovalAnnotation]), &record); err != nil {
		t.Fatalf("%s: %v", v1alpha1.LastApprovalAnnotation, err)
	}
	if record.User != "alice" || !slices.Equal(record.Rules, []string{"mysql-safety/safe-updates"}) ||
		record.Reason != "consolidating replicas after the migration, ticket DB-1234" || record.Time == "" {
		t.Errorf("%s = %+v", v1alpha1.LastApprovalAnnotation, record)
	}
	if replicas, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); replicas != 3 {
		t.Errorf("stored spec.replicas = %d, want 3", replicas)
	}

	// One-shot: the record stays, but the next shrink needs a new approval.
	if err := unstructured.SetNestedField(got.Object, int64(1), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	err := cluster.client.Update(t.Context(), got)
	if c := causes(t, err); !slices.Equal(c, []string{"spec.replicas: [mysql-safety/safe-updates] Invalid value: 1: may not decrease: was 3; allowed: 3 or more"}) {
		t.Errorf("causes of the second shrink: %q", c)
	}
}
