package webhook

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// sourceTimeout bounds how long a change in the cluster may take to reach
// the webhook's engine: the informer's delay, the debounce and a rebuild,
// with a wide margin for a loaded CI machine.
const sourceTimeout = 30 * time.Second

// eventually polls cond until it holds or sourceTimeout passes; cond
// reports what it saw, for the failure message.
func eventually(t *testing.T, what string, cond func(ctx context.Context) (bool, string)) {
	t.Helper()
	localcluster.Eventually(t, sourceTimeout, what, cond)
}

// dryRunCreate asks the cluster whether obj would be created.
func dryRunCreate(ctx context.Context, obj *unstructured.Unstructured) error {
	return cluster.client.Create(ctx, obj.DeepCopy(), client.DryRunAll)
}

func errString(err error) string {
	if err == nil {
		return "accepted"
	}
	return err.Error()
}

// getPolicy gets a stored GuardPolicy.
func getPolicy(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("crdguard.dev/v1alpha1")
	obj.SetKind("GuardPolicy")
	return obj, cluster.client.Get(ctx, client.ObjectKey{Name: name}, obj)
}

// guardPolicy is getPolicy for tests.
func guardPolicy(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	obj, err := getPolicy(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// setEnforcement updates the stored mysql-safety's spec.enforcement. It
// takes its own context: the cleanup that restores Deny runs after the
// test's context is canceled.
func setEnforcement(ctx context.Context, value string) error {
	obj, err := getPolicy(ctx, "mysql-safety")
	if err != nil {
		return err
	}
	if err := unstructured.SetNestedField(obj.Object, value, "spec", "enforcement"); err != nil {
		return err
	}
	return cluster.client.Update(ctx, obj)
}

// TestPolicyEdit: the webhook runs without --policies, so every denial in
// the other tests comes from the example policy as a cluster object;
// editing it (Deny to Warn and back) takes effect without a restart.
func TestPolicyEdit(t *testing.T) {
	ns := namespace(t)
	unsafe := example(t, "unsafe.yaml", ns)
	if err := dryRunCreate(t.Context(), unsafe); !apierrors.IsInvalid(err) {
		t.Fatalf("unsafe.yaml under the example policy: %v, want a denial", err)
	}

	if err := setEnforcement(t.Context(), "Warn"); err != nil {
		t.Fatal(err)
	}
	// Whatever happens below, the other tests need the policy as it was.
	restored := false
	t.Cleanup(func() {
		if !restored {
			if err := setEnforcement(context.Background(), "Deny"); err != nil {
				t.Errorf("restoring mysql-safety: %v", err)
			}
		}
	})
	eventually(t, "unsafe.yaml accepted after mysql-safety became Warn", func(ctx context.Context) (bool, string) {
		err := dryRunCreate(ctx, unsafe)
		return err == nil, errString(err)
	})
	// The findings are still reported, as warnings: the policy was edited,
	// not lost.
	res := runKubectl(t, "bob", "apply", "--dry-run=server", "-f", writeObject(t, unsafe))
	if !res.ok || !strings.Contains(res.stderr, "Warning: [mysql-safety/resources] spec.resources.limits.memory: Invalid value: limits.memory 8Gi is 8.0× requests.memory 1Gi; allowed more than 1.5× and less than 4×") {
		t.Errorf("kubectl apply --dry-run=server of unsafe.yaml under Warn:\n%s", res)
	}

	if err := setEnforcement(t.Context(), "Deny"); err != nil {
		t.Fatal(err)
	}
	restored = true
	eventually(t, "unsafe.yaml denied again after mysql-safety went back to Deny", func(ctx context.Context) (bool, string) {
		err := dryRunCreate(ctx, unsafe)
		return apierrors.IsInvalid(err), errString(err)
	})
}

// TestCRDUpdate: a new enum value in the MySQL CRD reaches the webhook's
// schema without a restart. The API server checks its own copy of the
// schema before it calls the webhook, so once the new value gets past the
// API server, only a stale schema in the webhook could deny it.
func TestCRDUpdate(t *testing.T) {
	ns := namespace(t)
	snapshot := example(t, "good.yaml", ns)
	if err := unstructured.SetNestedField(snapshot.Object, "Snapshot", "spec", "storage", "reclaimPolicy"); err != nil {
		t.Fatal(err)
	}
	if err := dryRunCreate(t.Context(), snapshot); !apierrors.IsInvalid(err) {
		t.Fatalf("reclaimPolicy Snapshot before the CRD allows it: %v, want Invalid", err)
	}

	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := cluster.client.Get(t.Context(), client.ObjectKey{Name: "mysqlclusters.db.example.io"}, crd); err != nil {
		t.Fatal(err)
	}
	original := crd.Spec.DeepCopy()
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		storage := v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["storage"]
		policy := storage.Properties["reclaimPolicy"]
		policy.Enum = append(policy.Enum, apiextensionsv1.JSON{Raw: []byte(`"Snapshot"`)})
		storage.Properties["reclaimPolicy"] = policy
		v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["storage"] = storage
	}
	if err := cluster.client.Update(t.Context(), crd); err != nil {
		t.Fatalf("adding Snapshot to the CRD: %v", err)
	}
	t.Cleanup(func() {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		ctx := context.Background()
		if err := cluster.client.Get(ctx, client.ObjectKey{Name: "mysqlclusters.db.example.io"}, crd); err != nil {
			t.Errorf("restoring the CRD: %v", err)
			return
		}
		crd.Spec = *original
		if err := cluster.client.Update(ctx, crd); err != nil {
			t.Errorf("restoring the CRD: %v", err)
		}
	})
	eventually(t, "reclaimPolicy Snapshot accepted after the CRD update", func(ctx context.Context) (bool, string) {
		err := dryRunCreate(ctx, snapshot)
		return err == nil, errString(err)
	})
}

// invalidPolicy is a GuardPolicy the CRD's schema admits but crdguard
// cannot compile: a CEL expression with a syntax error and a service
// account that is not namespace/name.
func invalidPolicy(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crdguard.dev/v1alpha1",
		"kind":       "GuardPolicy",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"match":     map[string]any{"resources": []any{map[string]any{"group": "db.example.io", "kinds": []any{"MySQLCluster"}}}},
			"approvers": map[string]any{"serviceAccounts": []any{"no-namespace"}},
			"rules": []any{map[string]any{
				"name": "broken",
				"cel":  map[string]any{"expression": "object.spec.replicas >=", "message": "never compiles"},
			}},
		},
	}}
}

// TestInvalidPolicyRejected: the API server sends GuardPolicies to
// /validate-policy, which denies one crdguard cannot compile with every
// field path, so it is never stored.
func TestInvalidPolicyRejected(t *testing.T) {
	obj := invalidPolicy("invalid")
	err := cluster.client.Create(t.Context(), obj)
	if !strings.Contains(errString(err), `admission webhook "`+policyName+`" denied the request`) {
		t.Fatalf("creating an invalid GuardPolicy: %v, want a denial by %s", err, policyName)
	}
	var fields []string
	for _, c := range causes(t, err) {
		field, _, _ := strings.Cut(c, ":")
		fields = append(fields, field)
	}
	slices.Sort(fields)
	if want := []string{"spec.approvers.serviceAccounts[0]", "spec.rules[0].cel.expression"}; !slices.Equal(fields, want) {
		t.Errorf("causes at %q, want %q:\n%v", fields, want, err)
	}
	if stored(t, obj) != nil {
		t.Error("the invalid GuardPolicy was stored")
	}

	// An update that breaks a valid policy is denied the same way.
	policy := guardPolicy(t, "frozen-namespaces")
	rules, _, _ := unstructured.NestedSlice(policy.Object, "spec", "rules")
	rules[0].(map[string]any)["cel"].(map[string]any)["expression"] = "object.spec.replicas >="
	if err := unstructured.SetNestedSlice(policy.Object, rules, "spec", "rules"); err != nil {
		t.Fatal(err)
	}
	err = cluster.client.Update(t.Context(), policy, client.DryRunAll)
	if c := causes(t, err); len(c) != 1 || !strings.HasPrefix(c[0], "spec.rules[0].cel.expression: ") {
		t.Errorf("breaking frozen-namespaces: causes %q, want one at spec.rules[0].cel.expression", c)
	}
}

// TestInvalidStoredPolicy: a GuardPolicy that is stored although invalid
// (here past /validate-policy by uncheckedLabel) never replaces its last
// good version; the webhook keeps enforcing that and reports the policy
// in crdguard_policy_invalid.
func TestInvalidStoredPolicy(t *testing.T) {
	ns := namespace(t)
	const message = "held by e2e-unchecked"
	policy := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crdguard.dev/v1alpha1",
		"kind":       "GuardPolicy",
		"metadata":   map[string]any{"name": "e2e-unchecked", "labels": map[string]any{uncheckedLabel: "true"}},
		"spec": map[string]any{
			"match": map[string]any{
				"resources": []any{map[string]any{"group": "db.example.io", "kinds": []any{"MySQLCluster"}}},
				// Only this test's namespace: the other tests never see it.
				"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": ns}},
			},
			"rules": []any{map[string]any{
				"name": "hold",
				"cel":  map[string]any{"expression": "false", "message": message},
			}},
		},
	}}
	if err := cluster.client.Create(t.Context(), policy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.client.Delete(context.Background(), policy); err != nil {
			t.Errorf("deleting e2e-unchecked: %v", err)
		}
	})
	good := example(t, "good.yaml", ns)
	held := func(ctx context.Context) (bool, string) {
		err := dryRunCreate(ctx, good)
		return apierrors.IsInvalid(err) && strings.Contains(err.Error(), message), errString(err)
	}
	eventually(t, "good.yaml denied by e2e-unchecked", held)

	// Break it. The CRD's schema admits the change and /validate-policy is
	// not asked, so the API server stores it.
	broken := guardPolicy(t, "e2e-unchecked")
	rules, _, _ := unstructured.NestedSlice(broken.Object, "spec", "rules")
	rules[0].(map[string]any)["cel"].(map[string]any)["expression"] = "object.spec.replicas >="
	if err := unstructured.SetNestedSlice(broken.Object, rules, "spec", "rules"); err != nil {
		t.Fatal(err)
	}
	if err := cluster.client.Update(t.Context(), broken); err != nil {
		t.Fatalf("storing the broken policy: %v", err)
	}
	// The metric shows that the webhook has seen the broken version ...
	const series = `crdguard_policy_invalid{policy="e2e-unchecked"}`
	eventually(t, "the broken e2e-unchecked reported", func(context.Context) (bool, string) {
		body := scrape(t)
		return sample(body, series) == 1, series + " absent or not 1"
	})
	// ... and still enforces the last good one.
	if ok, seen := held(t.Context()); !ok {
		t.Errorf("after e2e-unchecked broke, good.yaml: %s; want the last good version's denial", seen)
	}

	// Fixed, it replaces the last good version and leaves the metric.
	fixed := guardPolicy(t, "e2e-unchecked")
	if err := unstructured.SetNestedField(fixed.Object, "Warn", "spec", "enforcement"); err != nil {
		t.Fatal(err)
	}
	rules[0].(map[string]any)["cel"].(map[string]any)["expression"] = "false"
	if err := unstructured.SetNestedSlice(fixed.Object, rules, "spec", "rules"); err != nil {
		t.Fatal(err)
	}
	if err := cluster.client.Update(t.Context(), fixed); err != nil {
		t.Fatal(err)
	}
	eventually(t, "good.yaml accepted once e2e-unchecked is fixed to Warn", func(ctx context.Context) (bool, string) {
		err := dryRunCreate(ctx, good)
		return err == nil, errString(err)
	})
	if v := sample(scrape(t), series); v != -1 {
		t.Errorf("%s = %v after the fix, want no series", series, v)
	}
}
