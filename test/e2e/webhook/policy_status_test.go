package webhook

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/vap"
)

// statusPolicy is a GuardPolicy stored past /validate-policy (uncheckedLabel,
// so that a test can break it) for kinds of one group, in a namespace no
// object is ever created in: it changes no other test's verdicts.
func statusPolicy(name, group, kind string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crdguard.dev/v1alpha1",
		"kind":       "GuardPolicy",
		"metadata":   map[string]any{"name": name, "labels": map[string]any{uncheckedLabel: "true"}},
		"spec": map[string]any{
			"match": map[string]any{
				"resources":         []any{map[string]any{"group": group, "kinds": []any{kind}}},
				"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "policy-status-nothing"}},
			},
			"rules": []any{map[string]any{
				"name": "small",
				"cel":  map[string]any{"expression": "request.operation == 'DELETE' || object.spec.size <= 3", "message": "at most 3"},
			}},
		},
	}}
}

// TestPolicyStatus runs a second webhook with --policy-status, elected in
// a namespace of its own, against register's configuration "crdguard",
// which routes MySQLClusters only: a valid policy for them is Ready and
// Enforced, one for ConfigMaps is Ready and not Enforced, naming what is
// not routed, and an invalid update is not Ready, with the error, while
// the last good generation stays enforced. status.audit is left as it
// was, and kubectl shows the conditions in its columns.
func TestPolicyStatus(t *testing.T) {
	ctx := t.Context()
	const leases = "policy-status"
	if err := localcluster.EnsureNamespace(ctx, cluster.client, leases, nil); err != nil {
		t.Fatal(err)
	}

	routed := statusPolicy("status-routed", "db.example.io", "MySQLCluster")
	unrouted := statusPolicy("status-unrouted", "", "ConfigMap")
	for _, p := range []*unstructured.Unstructured{routed, unrouted} {
		if err := cluster.client.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := cluster.client.Delete(context.Background(), p); err != nil {
				t.Errorf("deleting %s: %v", p.GetName(), err)
			}
		})
	}
	startStatusWebhook(t, leases)

	waitConditions(t, "status-routed", map[string]metav1.Condition{
		v1alpha1.ConditionReady:    {Status: metav1.ConditionTrue, Reason: "Compiled", ObservedGeneration: 1, Message: "crdguard compiled generation 1 and enforces it"},
		v1alpha1.ConditionEnforced: {Status: metav1.ConditionTrue, Reason: "Routed", ObservedGeneration: 1, Message: "ValidatingWebhookConfiguration crdguard sends crdguard every kind and operation the policy matches"},
	})
	waitConditions(t, "status-unrouted", map[string]metav1.Condition{
		v1alpha1.ConditionReady: {Status: metav1.ConditionTrue, Reason: "Compiled", ObservedGeneration: 1, Message: "crdguard compiled generation 1 and enforces it"},
		v1alpha1.ConditionEnforced: {Status: metav1.ConditionFalse, Reason: "NotRouted", ObservedGeneration: 1, Message: "ValidatingWebhookConfiguration crdguard sends crdguard no requests for v1/configmaps (CREATE, UPDATE, DELETE); " +
			"no compiled ValidatingAdmissionPolicy stands in for rule small: ValidatingAdmissionPolicy crdguard-status-unrouted-deny is not installed"},
	})

	// What the background audit writes, through the same subresource.
	audit := []byte(`{"status":{"audit":{"lastRunTime":"2026-01-02T03:04:05Z","violations":3}}}`)
	if err := cluster.client.Status().Patch(ctx, statusPolicy("status-routed", "", ""), client.RawPatch(types.MergePatchType, audit)); err != nil {
		t.Fatal(err)
	}
	assertColumns(t, []string{
		"NAME              ENFORCEMENT   READY   VIOLATIONS   AGE",
		"status-routed     Deny          True    3            ",
		"status-unrouted   Deny          True                 ", // no audit yet
	})

	// Break status-routed: the schema admits it, /validate-policy is not
	// asked.
	broken, err := getPolicy(ctx, "status-routed")
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(broken.Object, []any{map[string]any{
		"name": "small",
		"cel":  map[string]any{"expression": "object.spec.size <=", "message": "never compiles"},
	}}, "spec", "rules"); err != nil {
		t.Fatal(err)
	}
	if err := cluster.client.Update(ctx, broken); err != nil {
		t.Fatalf("storing the broken policy: %v", err)
	}
	got := waitConditions(t, "status-routed", map[string]metav1.Condition{
		v1alpha1.ConditionReady:    {Status: metav1.ConditionFalse, Reason: "Invalid", ObservedGeneration: 2},
		v1alpha1.ConditionEnforced: {Status: metav1.ConditionTrue, Reason: "Routed", ObservedGeneration: 2, Message: "ValidatingWebhookConfiguration crdguard sends crdguard every kind and operation the policy matches"},
	})
	msg := got[v1alpha1.ConditionReady].Message
	const prefix, suffix = "generation 2 is invalid: spec.rules[0].cel.expression: Invalid value: \"object.spec.size <=\": ", "; the last good generation, 1, is still enforced"
	if !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, suffix) {
		t.Errorf("Ready message %q, want %q...%q", msg, prefix, suffix)
	}
	after, err := getPolicy(ctx, "status-routed")
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedInt64(after.Object, "status", "audit", "violations"); v != 3 {
		t.Errorf("status.audit.violations = %d after the conditions were written, want 3 (kept)", v)
	}
	assertColumns(t, []string{
		"NAME              ENFORCEMENT   READY   VIOLATIONS   AGE",
		"status-routed     Deny          False   3            ",
		"status-unrouted   Deny          True                 ", // no audit yet
	})
}

// TestPolicyStatusCompiled: with --enforcement=vap, a policy whose rules
// all compile, for a kind no webhook rule routes, is Enforced once its
// compiled ValidatingAdmissionPolicy and binding are installed, and not
// before.
func TestPolicyStatusCompiled(t *testing.T) {
	ctx := t.Context()
	const leases = "policy-status-vap"
	if err := localcluster.EnsureNamespace(ctx, cluster.client, leases, nil); err != nil {
		t.Fatal(err)
	}
	policy := statusPolicy("status-compiled", "", "ConfigMap")
	createForTest(t, policy)
	startStatusWebhook(t, leases, "--enforcement=vap")
	waitConditions(t, "status-compiled", map[string]metav1.Condition{
		v1alpha1.ConditionEnforced: {Status: metav1.ConditionFalse, Reason: "CompiledPoliciesMissing", ObservedGeneration: 1,
			Message: "rule small is left to compiled ValidatingAdmissionPolicies (--enforcement=vap), and ValidatingAdmissionPolicy crdguard-status-compiled-deny is not installed"},
	})

	// Its next generation, compiled as `crdguard vap` compiles it and
	// installed, then stored: the change makes the webhook check again.
	next, err := getPolicy(ctx, "status-compiled")
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(next.Object, "Warn", "spec", "enforcement"); err != nil {
		t.Fatal(err)
	}
	gp := &v1alpha1.GuardPolicy{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(next.Object, gp); err != nil {
		t.Fatal(err)
	}
	compiled, err := vap.Compile(gp, nil, vap.Findings)
	if err != nil {
		t.Fatal(err)
	}
	var objs []client.Object
	for i := range compiled.Policies {
		objs = append(objs, compiled.Policies[i], compiled.Bindings[i])
	}
	for _, obj := range objs {
		createForTest(t, obj)
	}
	if err := cluster.client.Update(ctx, next); err != nil {
		t.Fatal(err)
	}
	waitConditions(t, "status-compiled", map[string]metav1.Condition{
		v1alpha1.ConditionReady: {Status: metav1.ConditionTrue, Reason: "Compiled", ObservedGeneration: 2},
		v1alpha1.ConditionEnforced: {Status: metav1.ConditionTrue, Reason: "CompiledPolicies", ObservedGeneration: 2,
			Message: "ValidatingAdmissionPolicies crdguard-status-compiled-warn and their bindings match them for rule small"},
	})
}

// startStatusWebhook runs crdguard-webhook with --policy-status, elected
// in leaseNamespace, and extra flags, until the test ends. It is not
// registered: it serves no request, it only writes.
func startStatusWebhook(t *testing.T, leaseNamespace string, extra ...string) {
	t.Helper()
	ports, err := localcluster.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	startSecondWebhook(t, "the status webhook", ports, nil, append([]string{
		"--policy-status", "--validating-configurations=crdguard", "--leader-election-namespace=" + leaseNamespace,
	}, extra...)...)
}

// waitConditions waits until the policy's conditions of want's types
// have its status, reason, observedGeneration and, where want has one,
// message, and returns them.
func waitConditions(t *testing.T, name string, want map[string]metav1.Condition) map[string]metav1.Condition {
	t.Helper()
	got := map[string]metav1.Condition{}
	eventually(t, "the conditions of "+name, func(ctx context.Context) (bool, string) {
		obj, err := getPolicy(ctx, name)
		if err != nil {
			return false, err.Error()
		}
		var status v1alpha1.GuardPolicyStatus
		raw, _, _ := unstructured.NestedMap(obj.Object, "status")
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &status); err != nil {
			return false, err.Error()
		}
		ok := true
		for typ, w := range want {
			c := meta.FindStatusCondition(status.Conditions, typ)
			if c == nil {
				ok = false
				continue
			}
			got[typ] = *c
			if c.Status != w.Status || c.Reason != w.Reason || c.ObservedGeneration != w.ObservedGeneration || w.Message != "" && c.Message != w.Message {
				ok = false
			}
		}
		return ok, fmt.Sprintf("%+v", status.Conditions)
	})
	return got
}

// assertColumns runs the real kubectl get and compares its lines, the AGE
// column cut off.
func assertColumns(t *testing.T, want []string) {
	t.Helper()
	out, err := kubectl(t.Context(), "admin", "get", "guardpolicies", "status-routed", "status-unrouted").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl get guardpolicies: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("kubectl get guardpolicies printed\n%s\nwant %d lines", out, len(want))
	}
	age := strings.Index(lines[0], "AGE")
	for i, line := range lines {
		if i > 0 && age >= 0 && len(line) > age {
			line = line[:age]
		}
		if line != want[i] {
			t.Errorf("kubectl get guardpolicies line %d = %q, want %q", i, line, want[i])
		}
	}
}
