package app

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"
)

const clusterTestdata = "testdata/diff-cluster/"

var gizmosV1 = k8sschema.GroupVersionResource{Group: "migrate.example.io", Version: "v1", Resource: "gizmos"}

// fakeCluster is a cluster holding objs, for crdguard diff cluster:.
func fakeCluster(t *testing.T, objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	t.Helper()
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[k8sschema.GroupVersionResource]string{
		crdResource:        "CustomResourceDefinitionList",
		svmTarget.Resource: "StorageVersionMigrationList",
		gizmosV1:           "GizmoList",
		{Group: "migrate.example.io", Version: "v2", Resource: "gizmos"}: "GizmoList",
	}, objs...)
}

// liveCRD is the CRD of file as the cluster holds it, with
// status.storedVersions.
func liveCRD(t *testing.T, file string, storedVersions ...string) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(clusterTestdata + file)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatal(err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	crd.Status.StoredVersions = storedVersions
	crd.Annotations = map[string]string{lastApplied: string(data)}
	return toUnstructured(t, crd)
}

func toUnstructured(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func gizmo(name string, size int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "migrate.example.io/v1", "kind": "Gizmo",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     map[string]any{"size": size},
	}}
}

// runClusterDiff runs crdguard diff with client as the cluster.
func runClusterDiff(t *testing.T, client dynamic.Interface, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	streams := Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}
	cmd := newDiffCommandOn(streams, &kubeCluster{connect: func() (dynamic.Interface, error) { return client, nil }})
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.ExecuteContext(t.Context())
	var verdict exitCode
	var exit *exitError
	switch {
	case err == nil:
		return ExitOK, out.String(), errOut.String()
	case errors.As(err, &verdict):
		return int(verdict), out.String(), errOut.String()
	case errors.As(err, &exit):
		return exit.code, out.String(), errOut.String() + "crdguard: " + exit.Error() + "\n"
	}
	return ExitUsage, out.String(), errOut.String() + err.Error()
}

func TestParseClusterSide(t *testing.T) {
	for _, tc := range []struct {
		arg     string
		names   []string
		cluster bool
		err     string
	}{
		{arg: "cluster:", cluster: true},
		{arg: "cluster:a.example.io,b.example.io", names: []string{"a.example.io", "b.example.io"}, cluster: true},
		{arg: "cluster:a.example.io,", cluster: true, err: `"cluster:a.example.io,": want cluster: or cluster:NAME[,NAME...]`},
		{arg: "./cluster:", cluster: false},
		{arg: "crds/", cluster: false},
	} {
		names, cluster, err := parseClusterSide(tc.arg)
		if !slices.Equal(names, tc.names) || cluster != tc.cluster || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("parseClusterSide(%q) = %q, %v, %v; want %q, %v, %q", tc.arg, names, cluster, err, tc.names, tc.cluster, tc.err)
		}
	}
}

func TestDiffClusterUsage(t *testing.T) {
	client := fakeCluster(t, liveCRD(t, "v1.yaml", "v1"))
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{name: "cluster as NEW", args: []string{clusterTestdata + "v1.yaml", "cluster:"},
			stderr: "crdguard: NEW cluster:: the cluster holds what is installed, NEW what is to be installed: give a file, a directory, - or git:REF:PATH (the cluster is OLD)\n"},
		{name: "objects cluster with files", args: []string{"--objects", "cluster", clusterTestdata + "v1.yaml", clusterTestdata + "v1.yaml"},
			stderr: "crdguard: " + errNoCluster.Error() + "\n"},
		{name: "no objects limit", args: []string{"--objects", "cluster", "--objects-limit", "0", "cluster:", clusterTestdata + "v1.yaml"},
			stderr: "crdguard: --objects-limit 0: want a positive bound on the stored objects of a kind\n"},
		{name: "unknown CRD", args: []string{"cluster:nope.example.io", clusterTestdata + "v1.yaml"},
			stderr: `crdguard: OLD: reading CRD nope.example.io from the cluster: customresourcedefinitions.apiextensions.k8s.io "nope.example.io" not found` + "\n"},
		{name: "empty name", args: []string{"cluster:,", clusterTestdata + "v1.yaml"},
			stderr: `crdguard: OLD "cluster:,": want cluster: or cluster:NAME[,NAME...]` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runClusterDiff(t, client, tc.args...)
			if code != ExitUsage || stderr != tc.stderr {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, ExitUsage, tc.stderr)
			}
		})
	}
}

// TestDiffClusterReadsOnlyNewCRDs: cluster: compares the cluster's copy of
// each CRD NEW holds; a CRD the cluster lacks is added, and the cluster's
// other CRDs are not reported as removed. A live CRD, defaulted and with
// kubectl's last-applied annotation, equals its source file.
func TestDiffClusterReadsOnlyNewCRDs(t *testing.T) {
	other := liveCRD(t, "v1.yaml", "v1")
	other.SetName("others.migrate.example.io")
	client := fakeCluster(t, liveCRD(t, "v1.yaml", "v1"), other)
	code, stdout, stderr := runClusterDiff(t, client, "cluster:", clusterTestdata+"v1.yaml")
	want := "--- OLD cluster:\n+++ NEW testdata/diff-cluster/v1.yaml\n" +
		"gizmos.migrate.example.io unchanged (v1.yaml:1): 0 breaking, 0 warnings, 0 info\n" +
		"total: 0 breaking, 0 warnings, 0 info in 1 CRD (0 added, 0 removed, 0 changed, 1 unchanged)\n"
	if code != ExitOK || stdout != want || stderr != "" {
		t.Errorf("exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, stdout, want)
	}
	code, stdout, _ = runClusterDiff(t, fakeCluster(t), "--allow-empty", "cluster:", clusterTestdata+"v1.yaml")
	if code != ExitOK || !strings.Contains(stdout, "gizmos.migrate.example.io added") {
		t.Errorf("a CRD the cluster lacks: exit %d\n%s", code, stdout)
	}
	// Fail closed: a context without the CRDs is no proof they are new.
	code, _, stderr = runClusterDiff(t, fakeCluster(t), "cluster:", clusterTestdata+"v1.yaml")
	if code != ExitUsage || stderr != "crdguard: OLD cluster: holds no CustomResourceDefinition (--allow-empty compares it as an empty set)\n" {
		t.Errorf("a cluster without the CRDs: exit %d, stderr %q", code, stderr)
	}
}

// TestDiffClusterReplaysStoredObjects: --objects cluster replays every
// stored object of a changed version against NEW with diff.Replay.
func TestDiffClusterReplaysStoredObjects(t *testing.T) {
	client := fakeCluster(t, liveCRD(t, "v1.yaml", "v1"), gizmo("small", 1), gizmo("large", 300))
	code, stdout, _ := runClusterDiff(t, client, "-q", "--objects", "cluster", "cluster:", clusterTestdata+"v1-narrowed.yaml")
	want := "stored objects replayed against NEW:\n" +
		"Gizmo default/large (gizmos.migrate.example.io): 1 breaking\n" +
		"  breaking spec.size: ratchet-tolerated: the object's next write passes only while this value is unchanged; changing it or re-creating the object fails: Invalid value: 300: spec.size in body should be less than or equal to 100\n" +
		"total: 2 breaking, 0 warnings, 0 info in 1 CRD (0 added, 0 removed, 1 changed, 0 unchanged) and 2 stored objects replayed (1 broken, 0 skipped, 0 unreadable)\n"
	if code != ExitViolations || !strings.HasSuffix(stdout, want) {
		t.Errorf("exit %d, stdout\n%s\nwant it to end with\n%s", code, stdout, want)
	}
	// Past the bound, the objects not read could be the broken ones.
	code, _, stderr := runClusterDiff(t, client, "--objects", "cluster", "--objects-limit", "1", "cluster:", clusterTestdata+"v1-narrowed.yaml")
	if code != ExitUsage || stderr != "crdguard: gizmos.migrate.example.io has more than 1 stored objects at v1; raise --objects-limit\n" {
		t.Errorf("--objects-limit 1: exit %d, stderr %q", code, stderr)
	}
}

// TestDiffClusterForbiddenKind: a kind RBAC forbids listing is reported as
// not replayed, a warning, never as a clean replay.
func TestDiffClusterForbiddenKind(t *testing.T) {
	client := fakeCluster(t, liveCRD(t, "v1.yaml", "v1"), gizmo("small", 1))
	client.PrependReactor("list", "gizmos", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(gizmosV1.GroupResource(), "", errors.New(`User "ci" cannot list resource "gizmos"`))
	})
	code, stdout, _ := runClusterDiff(t, client, "-o", "json", "--objects", "cluster", "cluster:", clusterTestdata+"v1-color.yaml")
	rep := decodeReport(t, run{stdout: stdout})
	if code != ExitOK || len(rep.Results) != 2 {
		t.Fatalf("exit %d, want 0 (a warning); report\n%s", code, stdout)
	}
	r := rep.Results[1]
	const msg = `stored objects not replayed, so what the new CRD does to them is unknown: gizmos.migrate.example.io is forbidden: User "ci" cannot list resource "gizmos"; grant list on gizmos.migrate.example.io (docs/cli.md shows a ClusterRole), or replay an export with --objects DIR`
	if !r.Skipped || r.Source != "cluster:gizmos.migrate.example.io" || len(r.Violations) != 1 ||
		r.Violations[0].RuleID() != "replay/not-replayed" || r.Violations[0].Enforcement != "Warn" || r.Violations[0].Message != msg {
		t.Errorf("result of the forbidden kind = %+v", r)
	}
	if rep.Summary.Skipped != 1 || rep.Summary.Allowed != 1 {
		t.Errorf("summary = %+v, want the CRD allowed and the kind skipped", rep.Summary)
	}
}

// TestDiffClusterMigrations: a change that moves the storage version, or
// drops a version status.storedVersions lists, names the migration it
// needs and whether one ran; --migrations and -o migrations write it.
func TestDiffClusterMigrations(t *testing.T) {
	const svm = "apiVersion: storagemigration.k8s.io/v1\nkind: StorageVersionMigration\nmetadata:\n  name: gizmos.migrate.example.io-to-v2\nspec:\n  resource:\n    group: migrate.example.io\n    resource: gizmos\n"
	succeeded := &storagemigrationv1.StorageVersionMigration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "storagemigration.k8s.io/v1", Kind: "StorageVersionMigration"},
		ObjectMeta: metav1.ObjectMeta{Name: "gizmos.migrate.example.io-to-v2"},
		Spec:       storagemigrationv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: "migrate.example.io", Resource: "gizmos"}},
		Status: storagemigrationv1.StorageVersionMigrationStatus{Conditions: []metav1.Condition{{
			Type: "Succeeded", Status: metav1.ConditionTrue, Reason: "StorageVersionMigrationSucceeded",
			LastTransitionTime: metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)),
		}}},
	}
	const moves = "migrate the stored gizmos.migrate.example.io from v1 to v2 (the storage version moves from v1 to v2) with a StorageVersionMigration of gizmos.migrate.example.io (--migrations FILE writes it)"
	const removes = "migrate the stored gizmos.migrate.example.io from v1 to v2 (the new CRD removes v1, which status.storedVersions lists) with a StorageVersionMigration of gizmos.migrate.example.io (--migrations FILE writes it)"
	for _, tc := range []struct {
		name    string
		cluster []runtime.Object
		args    []string
		code    int
		message string
	}{
		{name: "files", args: []string{clusterTestdata + "v1.yaml", clusterTestdata + "v2-storage.yaml"},
			message: moves + "; whether one already ran only the cluster can tell (diff cluster: reads it)"},
		{name: "storage moves", cluster: []runtime.Object{liveCRD(t, "v1.yaml", "v1")}, args: []string{"cluster:", clusterTestdata + "v2-storage.yaml"},
			message: moves + "; none can have run yet: the cluster stores gizmos.migrate.example.io in v1"},
		{name: "stored version removed", cluster: []runtime.Object{liveCRD(t, "v2-storage.yaml", "v1", "v2")}, args: []string{"cluster:", clusterTestdata + "v2-only.yaml"},
			code: ExitViolations, message: removes + "; none has run in the cluster"},
		{name: "migration ran", cluster: []runtime.Object{liveCRD(t, "v2-storage.yaml", "v1", "v2"), toUnstructured(t, succeeded)}, args: []string{"cluster:", clusterTestdata + "v2-only.yaml"},
			code: ExitViolations, message: removes + "; StorageVersionMigration gizmos.migrate.example.io-to-v2 succeeded at 2026-12-01T10:00:00Z, but status.storedVersions still lists v1: kube-controller-manager trims it only when the CRD did not change during the migration; if the storage version was v2 when it ran, remove v1 from status.storedVersions (kubectl patch --subresource=status), else apply the migration again under a new name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "svm.yaml")
			code, stdout, _ := runClusterDiff(t, fakeCluster(t, tc.cluster...), append([]string{"-o", "json", "--migrations", file}, tc.args...)...)
			var got []string
			for _, f := range decodeReport(t, run{stdout: stdout}).Results[0].Violations {
				if f.RuleID() == "migration/storage-version-migration" {
					got = append(got, f.Message)
				}
			}
			if code != tc.code || !slices.Equal(got, []string{tc.message}) {
				t.Errorf("exit %d, migration findings %q; want %d, %q", code, got, tc.code, tc.message)
			}
			if data, err := os.ReadFile(file); err != nil || string(data) != svm {
				t.Errorf("--migrations wrote %q, %v; want\n%s", data, err, svm)
			}
			code, stdout, _ = runClusterDiff(t, fakeCluster(t, tc.cluster...), append([]string{"-o", "migrations"}, tc.args...)...)
			if code != tc.code || stdout != svm {
				t.Errorf("-o migrations: exit %d, stdout\n%s\nwant\n%s", code, stdout, svm)
			}
		})
	}
	// Nothing to migrate: the file is emptied, so an old migration is never
	// applied again.
	file := filepath.Join(t.TempDir(), "svm.yaml")
	if err := os.WriteFile(file, []byte(svm), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runClusterDiff(t, fakeCluster(t, liveCRD(t, "v2-storage.yaml", "v2")), "--migrations", file, "cluster:", clusterTestdata+"v2-storage.yaml")
	if data, _ := os.ReadFile(file); code != ExitOK || len(data) != 0 || stderr != "crdguard: note: no change needs a storage version migration\n" {
		t.Errorf("no migration: exit %d, file %q, stderr %q", code, data, stderr)
	}
}

// TestDiffClusterMigrationRunsUnknown: StorageVersionMigrations that
// cannot be listed leave whether a migration ran unknown, said as such.
func TestDiffClusterMigrationRunsUnknown(t *testing.T) {
	client := fakeCluster(t, liveCRD(t, "v2-storage.yaml", "v1", "v2"))
	client.PrependReactor("list", "storageversionmigrations", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(svmTarget.Resource.GroupResource(), "", errors.New(`User "ci" cannot list resource "storageversionmigrations"`))
	})
	_, stdout, _ := runClusterDiff(t, client, "-o", "json", "cluster:", clusterTestdata+"v2-only.yaml")
	var got []string
	for _, f := range decodeReport(t, run{stdout: stdout}).Results[0].Violations {
		if f.RuleID() == "migration/storage-version-migration" {
			got = append(got, f.Message)
		}
	}
	const want = `migrate the stored gizmos.migrate.example.io from v1 to v2 (the new CRD removes v1, which status.storedVersions lists) with a StorageVersionMigration of gizmos.migrate.example.io (--migrations FILE writes it); whether one already ran is unknown: listing StorageVersionMigrations: storageversionmigrations.storagemigration.k8s.io is forbidden: User "ci" cannot list resource "storageversionmigrations"`
	if !slices.Equal(got, []string{want}) {
		t.Errorf("migration findings %q, want %q", got, want)
	}
}

// TestDiffClusterForbiddenKindText: the text report names a kind it could
// not list as not replayed, and counts it skipped.
func TestDiffClusterForbiddenKindText(t *testing.T) {
	client := fakeCluster(t, liveCRD(t, "v1.yaml", "v1"))
	client.PrependReactor("list", "gizmos", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(gizmosV1.GroupResource(), "", errors.New(`User "ci" cannot list resource "gizmos"`))
	})
	_, stdout, _ := runClusterDiff(t, client, "-q", "--objects", "cluster", "cluster:", clusterTestdata+"v1-color.yaml")
	want := "stored objects replayed against NEW:\n" +
		`Gizmo (gizmos.migrate.example.io): not replayed: gizmos.migrate.example.io is forbidden: User "ci" cannot list resource "gizmos"; grant list on gizmos.migrate.example.io (docs/cli.md shows a ClusterRole), or replay an export with --objects DIR` + "\n" +
		"total: 0 breaking, 1 warning, 1 info in 1 CRD (0 added, 0 removed, 1 changed, 0 unchanged) and 1 stored object replayed (0 broken, 1 skipped, 0 unreadable)\n"
	if !strings.HasSuffix(stdout, want) {
		t.Errorf("stdout\n%s\nwant it to end with\n%s", stdout, want)
	}
}
