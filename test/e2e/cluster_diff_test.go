package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	crdreport "github.com/crdguard/crdguard/pkg/report"
)

// TestDiffClusterObjects: `crdguard diff --objects cluster cluster:`
// replays the stored objects of a changed CRD listed from a real
// kube-apiserver; a user RBAC lets read the CRD but not list its kind gets
// the kind reported as not replayed, never as clean, and with the grant
// the docs' ClusterRole names the same run replays it.
func TestDiffClusterObjects(t *testing.T) {
	const namespace = "cluster-diff"
	ensureNamespaces(t, namespace)
	dir := filepath.Join(cluster.root, "test", "e2e", "testdata", "cluster-diff")
	file := func(name string) string { return filepath.Join(dir, name) }
	mustKubectl(t, "apply", "-f", file("crd.yaml"))
	waitEstablished(t, "sprockets.replay.example.io")
	mustKubectl(t, "apply", "-n", namespace, "-f", file("objects.yaml"))

	// A lowered maximum: the stored large sprocket passes its next write
	// only while its size stays.
	code, rep, _ := diffCluster(t, "--objects", "cluster", "cluster:", file("narrowed.yaml"))
	large := replayedObject(t, rep, "large")
	if code != 1 || len(large.Violations) != 1 || large.Violations[0].RuleID() != "replay/ratchet-tolerated" || large.Violations[0].Field != "spec.size" ||
		!strings.HasSuffix(large.Violations[0].Message, "Invalid value: 300: spec.size in body should be less than or equal to 100") {
		t.Errorf("replay of the narrowed CRD: exit %d, large sprocket %+v", code, large)
	}
	if small := replayedObject(t, rep, "small"); !small.Allowed || len(small.Violations) != 0 {
		t.Errorf("small sprocket = %+v, want allowed without findings", small)
	}

	// The docs' ClusterRole without the kind: get on the CRDs only.
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard-diff-e2e"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: role.ObjectMeta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: unprivilegedUser}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := cluster.client.Create(t.Context(), obj); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		// The other tests expect the user to hold no cluster-wide grant.
		t.Cleanup(func() {
			if err := cluster.client.Delete(context.Background(), obj); err != nil && !apierrors.IsNotFound(err) {
				t.Error(err)
			}
		})
	}
	asUnprivileged := []string{"--kubeconfig", cluster.unprivileged, "--objects", "cluster", "cluster:", file("colored.yaml")}
	code, rep, _ = diffCluster(t, asUnprivileged...)
	const forbidden = `stored objects not replayed, so what the new CRD does to them is unknown: sprockets.replay.example.io is forbidden: User "unprivileged" cannot list resource "sprockets" in API group "replay.example.io" at the cluster scope; grant list on sprockets.replay.example.io (docs/cli.md shows a ClusterRole), or replay an export with --objects DIR`
	if code != 0 || len(rep.Results) != 2 || !rep.Results[1].Skipped || len(rep.Results[1].Violations) != 1 ||
		rep.Results[1].Violations[0].Message != forbidden || rep.Results[1].Violations[0].Enforcement != "Warn" || rep.Summary.Skipped != 1 {
		t.Errorf("a kind the user may not list: exit %d, report %+v; want 0 with the kind skipped and a warning", code, rep)
	}
	role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{"replay.example.io"}, Resources: []string{"sprockets"}, Verbs: []string{"list"}})
	if err := cluster.client.Update(t.Context(), role); err != nil {
		t.Fatal(err)
	}
	code, rep, _ = diffCluster(t, asUnprivileged...)
	if code != 0 || rep.Summary.Objects != 3 || rep.Summary.Allowed != 3 {
		t.Errorf("with list on sprockets: exit %d, summary %+v; want the CRD and both sprockets allowed", code, rep.Summary)
	}

	// Not the cluster's CRDs: nothing was listed, so nothing is claimed.
	cmd := exec.CommandContext(t.Context(), cluster.crdguard, "diff", "--kubeconfig", cluster.kubeconfig, "--objects", "cluster", file("crd.yaml"), file("narrowed.yaml"))
	if code, _, stderr, err := runCommand(cmd); err != nil || code != 2 || !strings.Contains(stderr, "OLD must be cluster:") {
		t.Errorf("--objects cluster with a file as OLD: exit %d, %v, stderr %q; want 2", code, err, stderr)
	}
}

// replayedObject is the result of the sprocket called name.
func replayedObject(t *testing.T, rep crdreport.Report, name string) crdreport.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.Kind == "Sprocket" && r.Name == name {
			return r
		}
	}
	t.Fatalf("no result for sprocket %s in %+v", name, rep.Results)
	return crdreport.Result{}
}
