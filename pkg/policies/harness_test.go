package policies

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// testApprovalKey signs the records of the golden cases, as the webhook's
// key would: a case's record counts only with its signature.
var testApprovalKey = func() *ApprovalKey {
	k, err := NewApprovalKey([]byte("crdguard golden cases approval key, 32+ bytes"))
	if err != nil {
		panic(err)
	}
	return k
}()

// runCases runs every case in testdata/<rule>/: a directory with
// policy.yaml, object.yaml and/or old.yaml (an old object makes an UPDATE,
// an old object alone a DELETE), optional request.yaml and crd.yaml, and
// want.txt with the expected result under each enforcement of the policy.
func runCases(t *testing.T, rule string) {
	dirs, err := filepath.Glob(filepath.Join("testdata", rule, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases in testdata/%s (%v)", rule, err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			var got strings.Builder
			for _, enforcement := range []v1alpha1.Enforcement{v1alpha1.Deny, v1alpha1.Warn, v1alpha1.Audit} {
				fmt.Fprintf(&got, "== %s\n%s", enforcement, evaluateCase(t, dir, enforcement))
			}
			golden.Assert(t, filepath.Join(dir, "want.txt"), []byte(got.String()))
		})
	}
}

func evaluateCase(t *testing.T, dir string, enforcement v1alpha1.Enforcement) string {
	t.Helper()
	c := goldencase.Read(t, dir)
	gps, err := PoliciesFromDocuments(t.Context(), c.PolicyDocs, c.Schemas)
	if err != nil {
		t.Fatal(err)
	}
	for _, gp := range gps {
		gp.Spec.Enforcement = enforcement
	}
	engine, err := NewEngine(c.Schemas, gps...)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{
		Operation: c.Operation, Object: c.Object, OldObject: c.OldObject, UserInfo: c.UserInfo,
		Namespace: c.Namespace, NamespaceLabels: c.NamespaceLabels, ApprovalKey: testApprovalKey,
	}
	res, err := engine.Evaluate(t.Context(), req)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return renderResult(res)
}

// renderResult writes a result one fact per line, in a stable order.
func renderResult(res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "allowed: %v\n", res.Allowed())
	fmt.Fprintf(&b, "policies: %s\n", strings.Join(res.Policies, ", "))
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "violation: %s %s [%s/%s] %s: %s\n", v.Field, v.Type, v.Policy, v.Rule, v.Enforcement, v.Message)
	}
	if a := res.Approval; a != nil {
		fmt.Fprintf(&b, "approval: user=%s rules=%s reason=%s lifted=%v\n", a.User, strings.Join(a.Rules, ","), a.Reason, a.Lifted)
	}
	for _, w := range res.AdmissionWarnings() {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	audit := res.AuditAnnotations()
	keys := make([]string, 0, len(audit))
	for k := range audit {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "audit: %s: %s\n", k, audit[k])
	}
	for _, p := range res.Patches {
		value, _ := json.Marshal(p.Value)
		fmt.Fprintf(&b, "patch: %s %s %s\n", p.Operation, p.Path, value)
	}
	return b.String()
}

// mysqlPolicy is a policy named p on MySQLClusters with the given rules,
// for the tests that build a rule's configuration in Go.
func mysqlPolicy(rules ...v1alpha1.Rule) *v1alpha1.GuardPolicy {
	return &v1alpha1.GuardPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: v1alpha1.GuardPolicySpec{
			Match: v1alpha1.Match{Resources: []v1alpha1.ResourceMatch{{Group: "db.example.io", Kinds: []string{"MySQLCluster"}}}},
			Rules: rules,
		},
	}
}

// assertPolicyErrors checks that ValidateGuardPolicy finds exactly want
// in p, in that order, each error as its field path and message.
func assertPolicyErrors(t *testing.T, p *v1alpha1.GuardPolicy, schemas *schema.Registry, want []string) {
	t.Helper()
	var got []string
	for _, e := range ValidateGuardPolicy(p, schemas) {
		got = append(got, e.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
