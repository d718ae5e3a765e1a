package vap

import (
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

// exampleCluster fails the example's resources rule (memory limit 8× the
// request) and its image-version rule (the image is 8.4.0).
const exampleCluster = `
apiVersion: db.example.io/v1
kind: MySQLCluster
metadata: {name: prod, namespace: shop}
spec:
  version: "8.0.36"
  image: mysql:8.4.0
  replicas: 3
  storage: {size: 20Gi}
  resources:
    requests: {cpu: "1", memory: 1Gi}
    limits: {cpu: "2", memory: 8Gi}
`

// record is the crdguard.dev/last-approval record the mutating webhook
// writes when it strips an approval of user's.
func record(user string) string {
	return `{"user":"` + user + `","rules":["mysql-safety/resources","mysql-safety/image-version"],"reason":"load test","time":"2026-12-06T01:00:00Z"}`
}

// signedRecord is record as a webhook with an approval key writes it.
// The compiled policy cannot check the signature, and needs not: the
// record counts only in the request that writes it, for its approver.
func signedRecord(user string) string {
	return strings.TrimSuffix(record(user), "}") + `,"sig":"fqEJ9j06R28R9oWxszs_3dFvzDbRr5_h-02gYvDv_cI"}`
}

// TestVAPExampleApprovals runs the example policy, approvers and all,
// compiled, on approvals by an approver and by others, and compares each
// finding with the engine's. The webhook's /validate sees a record the
// mutate path wrote with the approval put back (restoreApproval): the
// engine gets that object, the compiled policy the one kube-apiserver has.
func TestVAPExampleApprovals(t *testing.T) {
	gps, err := policies.PoliciesFromDocuments(t.Context(), goldencase.Documents(t, example+"/policy.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := Compile(gps[0], nil, Findings)
	if err != nil {
		t.Fatal(err)
	}
	engine, err := policies.NewEngine(nil, gps...)
	if err != nil {
		t.Fatal(err)
	}
	runner := newVAPRunner(t, compiled)
	dba := authenticationv1.UserInfo{Username: "dana", Groups: []string{"dba", "system:authenticated"}}
	mallory := authenticationv1.UserInfo{Username: "mallory", Groups: []string{"system:authenticated"}}
	const approval = "resources,image-version: load test"
	for _, tc := range []struct {
		name string
		user authenticationv1.UserInfo
		// annotations are the object's as kube-apiserver admits it,
		// old the stored object's (an UPDATE when set), restored the
		// approval the webhook puts back for the engine.
		annotations, old map[string]string
		restored         string
		// want are the compiled policy's findings of the Deny rules.
		want []string
	}{
		{name: "approved by a member of dba", user: dba, annotations: map[string]string{v1alpha1.ApproveAnnotation: approval}},
		{name: "approval by a non-approver", user: mallory, annotations: map[string]string{v1alpha1.ApproveAnnotation: approval}, want: []string{
			`metadata.annotations[crdguard.dev/approve] [mysql-safety/image-version] Deny: Forbidden: mallory may not approve mysql-safety/image-version; approvers: groups dba`,
			`metadata.annotations[crdguard.dev/approve] [mysql-safety/resources] Deny: Forbidden: mallory may not approve mysql-safety/resources; approvers: groups dba`,
			`spec.image [mysql-safety/image-version] Deny: Invalid value: "mysql:8.4.0": image tag 8.4.0 does not match spec.version 8.0.36 (compare: TagPrefix); allowed: 8.0.36 or 8.0.36-<variant> (not approved: mallory may not approve policy mysql-safety; approvers: groups dba)`,
			`spec.resources.limits.memory [mysql-safety/resources] Deny: Invalid value: limits.memory 8Gi is 8.0× requests.memory 1Gi; allowed more than 1.5× and less than 4× (not approved: mallory may not approve policy mysql-safety; approvers: groups dba)`,
		}},
		{name: "recorded by the mutating webhook", user: dba, annotations: map[string]string{v1alpha1.LastApprovalAnnotation: record("dana")}, restored: approval},
		{name: "recorded and signed by the mutating webhook", user: dba, annotations: map[string]string{v1alpha1.LastApprovalAnnotation: signedRecord("dana")}, restored: approval},
		{name: "record of someone else's", user: mallory, annotations: map[string]string{v1alpha1.LastApprovalAnnotation: record("dana")}, want: []string{
			`metadata.annotations[crdguard.dev/last-approval] [mysql-safety/image-version] Deny: Forbidden: it records an approval of mysql-safety/image-version by dana, and only crdguard writes it, in dana's own request`,
			`metadata.annotations[crdguard.dev/last-approval] [mysql-safety/resources] Deny: Forbidden: it records an approval of mysql-safety/resources by dana, and only crdguard writes it, in dana's own request`,
			`spec.image [mysql-safety/image-version] Deny: Invalid value: "mysql:8.4.0": image tag 8.4.0 does not match spec.version 8.0.36 (compare: TagPrefix); allowed: 8.0.36 or 8.0.36-<variant>`,
			`spec.resources.limits.memory [mysql-safety/resources] Deny: Invalid value: limits.memory 8Gi is 8.0× requests.memory 1Gi; allowed more than 1.5× and less than 4×`,
		}},
		{name: "approval carried over from the stored object", user: dba, annotations: map[string]string{v1alpha1.ApproveAnnotation: approval}, old: map[string]string{v1alpha1.ApproveAnnotation: approval}, want: []string{
			`spec.image [mysql-safety/image-version] Deny: Invalid value: "mysql:8.4.0": image tag 8.4.0 does not match spec.version 8.0.36 (compare: TagPrefix); allowed: 8.0.36 or 8.0.36-<variant>`,
			`spec.resources.limits.memory [mysql-safety/resources] Deny: Invalid value: limits.memory 8Gi is 8.0× requests.memory 1Gi; allowed more than 1.5× and less than 4×`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			object := func(annotations map[string]string) *unstructured.Unstructured {
				obj := goldencase.Object(t, exampleCluster)
				obj.SetAnnotations(annotations)
				return obj
			}
			req := policies.Request{Operation: v1alpha1.Create, Namespace: "shop", Object: object(tc.annotations), UserInfo: tc.user}
			if tc.old != nil {
				req.Operation, req.OldObject = v1alpha1.Update, object(tc.old)
			}
			evaluated := req
			if tc.restored != "" {
				restored := map[string]string{v1alpha1.ApproveAnnotation: tc.restored}
				for k, v := range tc.annotations {
					restored[k] = v
				}
				evaluated.Object = object(restored)
			}
			res, err := engine.Evaluate(t.Context(), evaluated)
			if err != nil {
				t.Fatal(err)
			}
			got := runner.run(t, t.Context(), &req)
			if len(got.errors) > 0 {
				t.Fatalf("compiled policy failed to evaluate: %q", got.errors)
			}
			var deny []enforcedFinding
			for _, f := range got.findings {
				if f.enforcement == string(v1alpha1.Deny) {
					deny = append(deny, f)
				}
			}
			if have := sortedStrings(deny); !slices.Equal(have, tc.want) {
				t.Errorf("compiled findings\n%s\nwant\n%s", strings.Join(have, "\n"), strings.Join(tc.want, "\n"))
			}
			if want, have := sortedStrings(engineFindings(res, compiled)), sortedStrings(got.findings); !slices.Equal(want, have) {
				t.Errorf("findings differ\n--- engine\n%s\n--- vap\n%s", strings.Join(want, "\n"), strings.Join(have, "\n"))
			}
		})
	}
}

// TestVAPExampleSize bounds the example's compiled policies and bindings
// as YAML, with its approvers and without: a reviewer reads them, and
// kube-apiserver type-checks every expression on each change of a policy.
func TestVAPExampleSize(t *testing.T) {
	gps, err := policies.PoliciesFromDocuments(t.Context(), goldencase.Documents(t, example+"/policy.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	open := gps[0].DeepCopy()
	open.Spec.Approvers = nil
	for _, tc := range []struct {
		name string
		gp   *v1alpha1.GuardPolicy
		max  int
	}{
		{"with approvers", gps[0], 64 << 10},
		{"without approvers", open, 64 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			compiled, err := Compile(tc.gp, nil, Findings)
			if err != nil {
				t.Fatal(err)
			}
			size := 0
			for i := range compiled.Policies {
				for _, obj := range []any{compiled.Policies[i], compiled.Bindings[i]} {
					data, err := yaml.Marshal(obj)
					if err != nil {
						t.Fatal(err)
					}
					size += len(data)
				}
			}
			t.Logf("%d bytes", size)
			if size > tc.max {
				t.Errorf("compiled policies are %d bytes of YAML, want at most %d", size, tc.max)
			}
		})
	}
}
