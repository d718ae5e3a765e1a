package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
	crdreport "github.com/crdguard/crdguard/pkg/report"
)

// migrationController is the field manager of kube-controller-manager's
// storage version migrator (names.StorageVersionMigratorController).
const migrationController = "storage-version-migrator-controller"

// TestStorageVersionMigration stores Gizmos as v1, moves the storage
// version to v2 and asks `crdguard diff cluster:` about a release that
// drops v1: breaking, since status.storedVersions lists v1, with the
// migration it needs written by --migrations. The written
// StorageVersionMigration is applied with kubectl to the real
// kube-apiserver. Its controller lives in kube-controller-manager, which
// hack/tools does not build, so the test does the controller's work
// through the API as pkg/controller/storageversionmigrator v1.37.2 does
// it (see runMigration); then the same diff is clean, and the real API
// server accepts the CRD without v1.
func TestStorageVersionMigration(t *testing.T) {
	const namespace = "migration"
	ensureNamespaces(t, namespace)
	dir := filepath.Join(cluster.root, "test", "e2e", "testdata", "migration")
	file := func(name string) string { return filepath.Join(dir, name) }
	mustKubectl(t, "apply", "-f", file("v1.yaml"))
	waitEstablished(t, "gizmos.migrate.example.io")
	mustKubectl(t, "apply", "-n", namespace, "-f", file("objects.yaml"))

	// Moving the storage version needs a migration, which none can have
	// run yet; it is a warning, not a failure.
	code, rep, _ := diffCluster(t, "cluster:", file("v2-storage.yaml"))
	if code != 0 {
		t.Fatalf("diff cluster: v2-storage.yaml: exit %d, want 0", code)
	}
	if got := migrationMessage(t, rep); got != "migrate the stored gizmos.migrate.example.io from v1 to v2 (the storage version moves from v1 to v2) with a StorageVersionMigration of gizmos.migrate.example.io (--migrations FILE writes it); none can have run yet: the cluster stores gizmos.migrate.example.io in v1" {
		t.Errorf("migration finding before the storage version moved = %q", got)
	}
	mustKubectl(t, "apply", "-f", file("v2-storage.yaml"))
	if got := storedVersions(t); !slices.Equal(got, []string{"v1", "v2"}) {
		t.Fatalf("status.storedVersions = %v, want [v1 v2]", got)
	}
	// Written after the move, stored as v2 already: the migration's
	// no-op patch must leave it as it is.
	mustKubectl(t, "apply", "-n", namespace, "-f", writeTemp(t, "new-gizmo.yaml", []byte("apiVersion: migrate.example.io/v2\nkind: Gizmo\nmetadata: {name: new}\nspec: {size: 2}\n")))

	// Dropping v1 now strands the objects stored as v1: breaking, as the
	// API server itself would refuse the update.
	svmFile := filepath.Join(t.TempDir(), "migrations.yaml")
	code, rep, _ = diffCluster(t, "--config", file("drop-v1.yaml"), "--migrations", svmFile, "cluster:", file("v2-only.yaml"))
	if code != 1 || !slices.Contains(findingRules(rep), "diff/stored-version-removed") {
		t.Fatalf("diff cluster: v2-only.yaml before the migration: exit %d, findings %v; want 1 with stored-version-removed", code, findingRules(rep))
	}
	if got := migrationMessage(t, rep); !strings.HasSuffix(got, "; none has run in the cluster") || !strings.HasPrefix(got, "migrate the stored gizmos.migrate.example.io from v1 to v2 (the new CRD removes v1, which status.storedVersions lists)") {
		t.Errorf("migration finding before the migration = %q", got)
	}
	if out, err := kubectl(t.Context(), "apply", "--dry-run=server", "-f", file("v2-only.yaml")).CombinedOutput(); err == nil || !strings.Contains(string(out), "storedVersions") {
		t.Fatalf("kube-apiserver accepted dropping v1 before the migration: %v\n%s", err, out)
	}
	written, err := os.ReadFile(svmFile)
	if err != nil {
		t.Fatal(err)
	}
	const wantSVM = "apiVersion: storagemigration.k8s.io/v1\nkind: StorageVersionMigration\nmetadata:\n  name: gizmos.migrate.example.io-to-v2\nspec:\n  resource:\n    group: migrate.example.io\n    resource: gizmos\n"
	if string(written) != wantSVM {
		t.Fatalf("--migrations wrote\n%s\nwant\n%s", written, wantSVM)
	}
	mustKubectl(t, "apply", "-f", svmFile)

	before := resourceVersions(t, namespace)
	runMigration(t, "gizmos.migrate.example.io-to-v2", namespace)
	after := resourceVersions(t, namespace)
	// The patch changes nothing in an object, so the API server writes it
	// only when its stored encoding differs: the v1 objects get a new
	// resourceVersion, the v2 one keeps its own.
	for name, rv := range before {
		if rewritten := after[name] != rv; rewritten != (name != "new") {
			t.Errorf("gizmo %s: resourceVersion %s before the migration, %s after; want a rewrite only of the objects stored as v1", name, rv, after[name])
		}
	}
	// Succeeded, but status.storedVersions not yet trimmed: diff names the
	// migration that ran and what is left to do.
	code, rep, _ = diffCluster(t, "--config", file("drop-v1.yaml"), "cluster:", file("v2-only.yaml"))
	if got := migrationMessage(t, rep); code != 1 || !strings.Contains(got, "; StorageVersionMigration gizmos.migrate.example.io-to-v2 succeeded at ") {
		t.Errorf("diff after the migration, before storedVersions is trimmed: exit %d, migration finding %q", code, got)
	}
	trimStoredVersions(t, "gizmos.migrate.example.io")

	code, rep, stderr := diffCluster(t, "--config", file("drop-v1.yaml"), "--migrations", svmFile, "cluster:", file("v2-only.yaml"))
	if code != 0 || rep.Summary.Denied != 0 || migrationMessage(t, rep) != "" {
		t.Errorf("diff cluster: v2-only.yaml after the migration: exit %d, findings %v; want 0 and no migration", code, findingRules(rep))
	}
	if data, _ := os.ReadFile(svmFile); len(data) != 0 || stderr != "crdguard: note: no change needs a storage version migration\n" {
		t.Errorf("--migrations after the migration: file %q, stderr %q; want it emptied, with a note", data, stderr)
	}
	mustKubectl(t, "apply", "-f", file("v2-only.yaml"))
	if got := storedVersions(t); !slices.Equal(got, []string{"v2"}) {
		t.Errorf("status.storedVersions after dropping v1 = %v, want [v2]", got)
	}
}

// runMigration does through the API what kube-controller-manager's
// storage version migrator (k8s.io/kubernetes v1.37.2,
// pkg/controller/storageversionmigrator) does for a StorageVersionMigration
// of a CRD's resource: record the resource's list resourceVersion
// (ResourceVersionController), mark it Running, send each object older
// than that an empty merge patch as the migrator's field manager, so the
// API server writes it in the storage version (SVMController.runMigration),
// then mark it Succeeded. Trimming status.storedVersions, which the
// controller's MigrationRunnerController does last, is trimStoredVersions.
// Left out, as they change nothing the test checks: the controller reads
// the objects from the garbage collector's cache rather than one list,
// skips those written after the recorded resourceVersion, and sets the
// CRD's StorageMigrating condition, with which it checks that the CRD did
// not change meanwhile.
func runMigration(t *testing.T, name, namespace string) {
	t.Helper()
	ctx := t.Context()
	dyn := dynamic.NewForConfigOrDie(cluster.config)
	svms := dyn.Resource(storagemigrationv1.SchemeGroupVersion.WithResource("storageversionmigrations"))
	gizmos := dyn.Resource(k8sschema.GroupVersionResource{Group: "migrate.example.io", Version: "v2", Resource: "gizmos"})
	list, err := gizmos.Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	setStatus := func(mutate func(*storagemigrationv1.StorageVersionMigration)) {
		obj, err := svms.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		svm := &storagemigrationv1.StorageVersionMigration{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, svm); err != nil {
			t.Fatal(err)
		}
		mutate(svm)
		data, err := runtime.DefaultUnstructuredConverter.ToUnstructured(svm)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svms.UpdateStatus(ctx, &unstructured.Unstructured{Object: data}, metav1.UpdateOptions{FieldManager: migrationController}); err != nil {
			t.Fatal(err)
		}
	}
	setStatus(func(svm *storagemigrationv1.StorageVersionMigration) {
		svm.Status.ResourceVersion = list.GetResourceVersion()
		meta.SetStatusCondition(&svm.Status.Conditions, metav1.Condition{Type: string(storagemigrationv1.MigrationRunning), Status: metav1.ConditionTrue, Reason: "StorageVersionMigrationInProgress"})
	})
	for _, obj := range list.Items {
		patch, err := json.Marshal(map[string]any{
			"apiVersion": "migrate.example.io/v2", "kind": "Gizmo",
			"metadata": map[string]any{"resourceVersion": obj.GetResourceVersion()},
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gizmos.Namespace(obj.GetNamespace()).Patch(ctx, obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: migrationController}); err != nil {
			t.Fatalf("migrating gizmo %s: %v", obj.GetName(), err)
		}
	}
	setStatus(func(svm *storagemigrationv1.StorageVersionMigration) {
		meta.SetStatusCondition(&svm.Status.Conditions, metav1.Condition{Type: string(storagemigrationv1.MigrationSucceeded), Status: metav1.ConditionTrue, Reason: "StorageVersionMigrationSucceeded"})
		meta.SetStatusCondition(&svm.Status.Conditions, metav1.Condition{Type: string(storagemigrationv1.MigrationRunning), Status: metav1.ConditionFalse, Reason: "MigrationCompleted"})
	})
}

// trimStoredVersions sets the CRD's status.storedVersions to its storage
// version, as the migrator's MigrationRunnerController does once a
// migration succeeded.
func trimStoredVersions(t *testing.T, name string) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := cluster.client.Get(t.Context(), client.ObjectKey{Name: name}, crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			crd.Status.StoredVersions = []string{v.Name}
		}
	}
	if err := cluster.client.Status().Update(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
}

// diffCluster runs crdguard diff -o json against the cluster and returns
// its exit code, report and stderr; exit codes other than 0 and 1 end the
// test.
func diffCluster(t *testing.T, args ...string) (int, crdreport.Report, string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), cluster.crdguard, append([]string{"diff", "--kubeconfig", cluster.kubeconfig, "-o", "json"}, args...)...)
	code, stdout, stderr, err := runCommand(cmd)
	if err != nil || (code != 0 && code != 1) {
		t.Fatalf("crdguard diff %s: exit %d, %v\n%s", strings.Join(args, " "), code, err, stderr)
	}
	var rep crdreport.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("crdguard diff %s: %v\n%s", strings.Join(args, " "), err, stdout)
	}
	return code, rep, stderr
}

// migrationMessage is the message of the report's storage version
// migration finding, "" if it has none.
func migrationMessage(t *testing.T, rep crdreport.Report) string {
	t.Helper()
	for _, r := range rep.Results {
		for _, f := range r.Violations {
			if f.RuleID() == "migration/storage-version-migration" {
				return f.Message
			}
		}
	}
	return ""
}

// findingRules are the rule ids of every finding of rep.
func findingRules(rep crdreport.Report) []string {
	var out []string
	for _, r := range rep.Results {
		for _, f := range r.Violations {
			out = append(out, f.RuleID())
		}
	}
	return out
}

// mustKubectl runs kubectl against the test cluster; a failure ends the
// test.
func mustKubectl(t *testing.T, args ...string) {
	t.Helper()
	if out, err := kubectl(t.Context(), args...).CombinedOutput(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func waitEstablished(t *testing.T, names ...string) {
	t.Helper()
	if err := localcluster.WaitEstablished(t.Context(), cluster.client, names...); err != nil {
		t.Fatal(err)
	}
}

func storedVersions(t *testing.T) []string {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := cluster.client.Get(t.Context(), client.ObjectKey{Name: "gizmos.migrate.example.io"}, crd); err != nil {
		t.Fatal(err)
	}
	return crd.Status.StoredVersions
}

// resourceVersions maps each gizmo of namespace to its resourceVersion.
func resourceVersions(t *testing.T, namespace string) map[string]string {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("migrate.example.io/v2")
	list.SetKind("GizmoList")
	if err := cluster.client.List(t.Context(), list, client.InNamespace(namespace)); err != nil {
		t.Fatal(err)
	}
	rvs := map[string]string{}
	for _, obj := range list.Items {
		rvs[obj.GetName()] = obj.GetResourceVersion()
	}
	return rvs
}
