package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
	crdreport "github.com/crdguard/crdguard/pkg/report"
)

// migrationController is the name of kube-controller-manager's storage
// version migrator (names.StorageVersionMigratorController).
const migrationController = "storage-version-migrator-controller"

// TestStorageVersionMigration stores Gizmos as v1, moves the storage
// version to v2 and asks `crdguard diff cluster:` about a release that
// drops v1: breaking, since status.storedVersions lists v1, with the
// migration it needs written by --migrations. The written
// StorageVersionMigration is applied with kubectl to the real
// kube-apiserver and run by the real storage version migrator of
// kube-controller-manager, which rewrites the objects stored as v1 and
// trims status.storedVersions; then the same diff is clean, and the real
// API server accepts the CRD without v1.
func TestStorageVersionMigration(t *testing.T) {
	const namespace = "migration"
	const crdName = "gizmos.migrate.example.io"
	const svmName = crdName + "-to-v2"
	ensureNamespaces(t, namespace)
	dir := filepath.Join(cluster.root, "test", "e2e", "testdata", "migration")
	file := func(name string) string { return filepath.Join(dir, name) }
	mustKubectl(t, "apply", "-f", file("v1.yaml"))
	waitEstablished(t, crdName)
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

	// No controller runs it yet.
	code, rep, _ = diffCluster(t, "--config", file("drop-v1.yaml"), "cluster:", file("v2-only.yaml"))
	if got := migrationMessage(t, rep); code != 1 || !strings.HasSuffix(got, "; StorageVersionMigration gizmos.migrate.example.io-to-v2 has not started: is kube-controller-manager's storage version migrator enabled?") {
		t.Errorf("diff with the migration applied, before kube-controller-manager runs: exit %d, migration finding %q", code, got)
	}

	before := resourceVersions(t, namespace)
	migrator := startStorageVersionMigrator(t)
	svm := waitMigrationDone(t, migrator, svmName)
	if c := meta.FindStatusCondition(svm.Status.Conditions, string(storagemigrationv1.MigrationSucceeded)); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("StorageVersionMigration %s ended without succeeding: %+v", svmName, svm.Status.Conditions)
	}
	after := resourceVersions(t, namespace)
	// The patch changes nothing in an object, so the API server writes it
	// only when its stored encoding differs: the v1 objects get a new
	// resourceVersion, the v2 one keeps its own.
	for name, rv := range before {
		if rewritten := after[name] != rv; rewritten != (name != "new") {
			t.Errorf("gizmo %s: resourceVersion %s before the migration, %s after; want a rewrite only of the objects stored as v1", name, rv, after[name])
		}
	}
	// The controller trims status.storedVersions before it marks the
	// migration as no longer running, since the CRD did not change
	// meanwhile.
	if got := storedVersions(t); !slices.Equal(got, []string{"v2"}) {
		t.Errorf("status.storedVersions after the migration = %v, want [v2]", got)
	}

	// Had the CRD changed during the migration, the controller would have
	// left v1 in status.storedVersions: diff names the migration that ran
	// and what is left to do, which is what the test then does.
	setStoredVersions(t, crdName, "v1", "v2")
	code, rep, _ = diffCluster(t, "--config", file("drop-v1.yaml"), "cluster:", file("v2-only.yaml"))
	if got := migrationMessage(t, rep); code != 1 || !strings.Contains(got, "; StorageVersionMigration gizmos.migrate.example.io-to-v2 succeeded at ") {
		t.Errorf("diff after the migration, with v1 still in storedVersions: exit %d, migration finding %q", code, got)
	}
	setStoredVersions(t, crdName, "v2")

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

// startStorageVersionMigrator runs kube-controller-manager, as the
// cluster admin, with only the storage version migrator and the garbage
// collector, whose informers the migrator reads the objects from (the
// feature gates it needs, StorageVersionMigrator, InformerResourceVersion
// and InOrderInformers, are on by default in v1.37). It serves nothing
// (--secure-port=0): the test watches it work through the
// StorageVersionMigration's status. It is stopped with SIGTERM when the
// test ends, and its log is shown if the test failed.
func startStorageVersionMigrator(t *testing.T) *localcluster.Process {
	t.Helper()
	if _, err := os.Stat(cluster.controllerManager); err != nil {
		t.Fatalf("no kube-controller-manager beside kube-apiserver (`sh hack/tools/install.sh kube-controller-manager` builds it, as make test does): %v", err)
	}
	output := &localcluster.Output{}
	cmd := exec.Command(cluster.controllerManager,
		"--kubeconfig="+cluster.kubeconfig,
		"--controllers="+migrationController+",garbage-collector-controller",
		"--leader-elect=false", "--secure-port=0", "--v=2",
	)
	cmd.Stdout, cmd.Stderr = output, output
	proc, err := localcluster.StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Without the alpha gate ControllerManagerReleaseLeaderElectionLockOnExit
		// it sets no handler for SIGTERM, which ends it: that is its clean
		// stop, as under a kubelet.
		var exit *exec.ExitError
		if err := proc.Stop(30 * time.Second); !errors.As(err, &exit) || !killedBySIGTERM(exit) {
			t.Errorf("kube-controller-manager: %v; want it ended by SIGTERM", err)
		}
		if t.Failed() {
			t.Logf("kube-controller-manager's log:\n%s", output)
		}
	})
	return proc
}

func killedBySIGTERM(exit *exec.ExitError) bool {
	status, ok := exit.Sys().(syscall.WaitStatus)
	return ok && status.Signaled() && status.Signal() == syscall.SIGTERM
}

// waitMigrationDone waits until the migrator ended the
// StorageVersionMigration name: failed, or succeeded and no longer
// running, which it marks after it updated the CRD's
// status.storedVersions.
func waitMigrationDone(t *testing.T, migrator *localcluster.Process, name string) *storagemigrationv1.StorageVersionMigration {
	t.Helper()
	svm := &storagemigrationv1.StorageVersionMigration{}
	localcluster.Eventually(t, 2*time.Minute, "StorageVersionMigration "+name+" done", func(ctx context.Context) (bool, string) {
		if !migrator.Running() {
			return false, "kube-controller-manager exited"
		}
		if err := cluster.client.Get(ctx, client.ObjectKey{Name: name}, svm); err != nil {
			return false, err.Error()
		}
		conds := svm.Status.Conditions
		done := meta.IsStatusConditionTrue(conds, string(storagemigrationv1.MigrationFailed)) ||
			meta.IsStatusConditionTrue(conds, string(storagemigrationv1.MigrationSucceeded)) && !meta.IsStatusConditionTrue(conds, string(storagemigrationv1.MigrationRunning))
		return done, fmt.Sprintf("conditions %+v", conds)
	})
	return svm
}

// setStoredVersions sets the CRD's status.storedVersions as a cluster
// admin does, with kubectl patch --subresource=status.
func setStoredVersions(t *testing.T, crd string, versions ...string) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"storedVersions": versions}})
	if err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, "patch", "crd", crd, "--subresource=status", "--type=merge", "-p", string(patch))
	if got := storedVersions(t); !slices.Equal(got, versions) {
		t.Fatalf("status.storedVersions after the patch = %v, want %v", got, versions)
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
