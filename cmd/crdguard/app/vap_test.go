package app

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/manifest"
)

const ratioPolicy = "../../../pkg/policies/testdata/resources/ratio-boundaries/policy.yaml"

func TestVAPCheck(t *testing.T) {
	r := crdguard(t, "", "vap", "--policies", examplePolicy, "--check")
	if r.code != ExitOK {
		t.Fatalf("exit code = %d, want 0; stderr: %s", r.code, r.stder)
	}
	want := "GuardPolicy mysql-safety\n" +
		"  RULE                 KIND          RUNS IN\n" +
		"  resources            resources     vap, and webhook for its approvals\n" +
		"  default-cpu-limit    defaults      mutating admission policy, and webhook\n" +
		"  image-version        imageVersion  vap, and webhook for its approvals\n" +
		"  safe-updates         transitions   vap, and webhook for its approvals\n" +
		"  protect-data         deletion      webhook: the policy has approvers and the rule runs on DELETE: a deletion is approved with the stored crdguard.dev/approve and its crdguard.dev/last-approval record, which needs the webhook\n" +
		"  production-replicas  cel           vap\n"
	if r.stdout != want {
		t.Errorf("--check output\n got:\n%s\nwant:\n%s", r.stdout, want)
	}
	if r.stder != "" {
		t.Errorf("stderr = %q, want nothing", r.stder)
	}
}

// TestVAPYAML prints the objects of two policies: the defaults' mutating
// policy first, each policy followed by its binding, and the rules kept by
// the webhook are named on stderr.
func TestVAPYAML(t *testing.T) {
	r := crdguard(t, "", "vap", "--policies", examplePolicy, "--policies", ratioPolicy, "--crds", exampleCRD)
	if r.code != ExitOK {
		t.Fatalf("exit code = %d; stderr: %s", r.code, r.stder)
	}
	docs, err := manifest.Read(strings.NewReader(r.stdout), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		if d.Err != nil {
			t.Fatal(d.Err)
		}
		got = append(got, d.Object.GetKind()+"/"+d.Object.GetName())
	}
	want := []string{
		"MutatingAdmissionPolicy/crdguard-mysql-safety-defaults", "MutatingAdmissionPolicyBinding/crdguard-mysql-safety-defaults",
		"ValidatingAdmissionPolicy/crdguard-mysql-safety-deny", "ValidatingAdmissionPolicyBinding/crdguard-mysql-safety-deny",
		"ValidatingAdmissionPolicy/crdguard-mysql-safety-warn", "ValidatingAdmissionPolicyBinding/crdguard-mysql-safety-warn",
		"ValidatingAdmissionPolicy/crdguard-pod-resources-deny", "ValidatingAdmissionPolicyBinding/crdguard-pod-resources-deny",
	}
	if !slices.Equal(got, want) {
		t.Errorf("objects = %q, want %q", got, want)
	}
	var binding admissionregistrationv1.ValidatingAdmissionPolicyBinding
	data, _ := yaml.Marshal(docs[5].Object.Object)
	if err := yaml.UnmarshalStrict(data, &binding); err != nil {
		t.Fatal(err)
	}
	if binding.Spec.PolicyName != "crdguard-mysql-safety-warn" || !slices.Equal(binding.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}) {
		t.Errorf("binding spec = %+v", binding.Spec)
	}
	if strings.Contains(r.stdout, "creationTimestamp") || strings.Contains(r.stdout, "status") {
		t.Errorf("output carries empty creationTimestamp or status:\n%s", r.stdout)
	}
	if !strings.Contains(r.stder, "crdguard: GuardPolicy mysql-safety, rule protect-data stays with the webhook: ") {
		t.Errorf("stderr does not name rule protect-data:\n%s", r.stder)
	}
	if n := strings.Count(r.stder, "\n"); n != 1 {
		t.Errorf("stderr has %d lines, want 1:\n%s", n, r.stder)
	}
}

// vapList runs crdguard vap with args and -o json, and reads the first
// ValidatingAdmissionPolicy of its output.
func vapList(t *testing.T, args ...string) admissionregistrationv1.ValidatingAdmissionPolicy {
	t.Helper()
	r := crdguard(t, "", append(append([]string{"vap"}, args...), "-o", "json")...)
	if r.code != ExitOK {
		t.Fatalf("exit code = %d; stderr: %s", r.code, r.stder)
	}
	var list struct {
		APIVersion string                                              `json:"apiVersion"`
		Kind       string                                              `json:"kind"`
		Items      []admissionregistrationv1.ValidatingAdmissionPolicy `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatal(err)
	}
	if list.APIVersion != "v1" || list.Kind != "List" || len(list.Items) != 2 {
		t.Fatalf("got %s %s with %d items", list.APIVersion, list.Kind, len(list.Items))
	}
	vap := list.Items[0]
	// Two rules, each with its check and its approval check.
	if vap.Spec.FailurePolicy == nil || *vap.Spec.FailurePolicy != admissionregistrationv1.Fail || len(vap.Spec.Validations) != 4 {
		t.Errorf("policy spec = failurePolicy %v, %d validations; want Fail and two per rule", vap.Spec.FailurePolicy, len(vap.Spec.Validations))
	}
	if conditions := vap.Spec.MatchConditions; len(conditions) != 1 || conditions[0].Name != "kinds" {
		t.Errorf("match conditions = %v; want kinds only", conditions)
	}
	return vap
}

// TestVAPJSON checks both messages: a static one, the rule, the field and
// what is allowed, by default; and with --messages findings, each
// finding, read from the check's variable only when the validation fails.
func TestVAPJSON(t *testing.T) {
	v := vapList(t, "--policies", ratioPolicy).Spec.Validations[0]
	if want := "[pod-resources/ratio] <nil>: Invalid value: limits.cpu over requests.cpu allowed more than 1.5× and less than 4×; limits.memory over requests.memory allowed more than 1.5× and less than 4×, at every container's and init container's resources (the Workloads preset)"; v.Message != want || v.MessageExpression != "" {
		t.Errorf("message = %q, messageExpression = %q; want %q alone", v.Message, v.MessageExpression, want)
	}
	if strings.Contains(v.Expression, "variables.ratio") {
		t.Errorf("expression = %q; want the check's boolean form, without its findings", v.Expression)
	}
	// The preset's walks are too large to write out in a gate (see
	// TestVAPGate): the policy has none, and the message tests the
	// validation first.
	v = vapList(t, "--policies", ratioPolicy, "--messages", "findings").Spec.Validations[0]
	if want := "(" + v.Expression + `) ? "" : "[pod-resources/ratio] " + variables.ratio.join("; ")`; v.MessageExpression != want {
		t.Errorf("message = %q; want the prefixed findings behind the validation %q", v.MessageExpression, v.Expression)
	}
}

// TestVAPExampleSize keeps the example's compiled policies small enough
// to review: under 32 KiB with the default messages, which is less than
// half of what the findings take.
func TestVAPExampleSize(t *testing.T) {
	summary := crdguard(t, "", "vap", "--policies", examplePolicy)
	findings := crdguard(t, "", "vap", "--policies", examplePolicy, "--messages", "findings")
	if summary.code != ExitOK || findings.code != ExitOK {
		t.Fatalf("exit codes %d and %d; stderr: %s%s", summary.code, findings.code, summary.stder, findings.stder)
	}
	if n := len(summary.stdout); n > 32<<10 || 2*n > len(findings.stdout) {
		t.Errorf("output is %d bytes, and %d with --messages findings; want at most 32 KiB and less than half", n, len(findings.stdout))
	}
}

func TestVAPErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, bad, "apiVersion: crdguard.dev/v1alpha1\nkind: GuardPolicy\nmetadata: {name: bad}\nspec: {match: {resources: [{kinds: [Pod]}]}, rules: [{name: r, cel: {expression: 'object.'}}]}\n")
	checkUsageErrors(t, []usageErrorCase{
		{"no policies", []string{"vap"}, "crdguard: --policies is required\n"},
		{"bad output", []string{"vap", "--policies", examplePolicy, "-o", "table"}, "crdguard: invalid argument \"table\" for \"-o, --output\" flag: unknown output format \"table\": valid formats are yaml, json\nRun 'crdguard vap --help' for usage.\n"},
		{"bad messages", []string{"vap", "--policies", examplePolicy, "--messages", "values"}, "crdguard: invalid argument \"values\" for \"--messages\" flag: unknown value \"values\": valid values are summary, findings\nRun 'crdguard vap --help' for usage.\n"},
		{"no GuardPolicy", []string{"vap", "--policies", exampleCRD}, "crdguard: " + exampleCRD + " holds no GuardPolicy\n"},
		{"missing file", []string{"vap", "--policies", "nope.yaml"}, "crdguard: reading GuardPolicies: stat nope.yaml: no such file or directory\n"},
		{"invalid policy", []string{"vap", "--policies", bad}, "crdguard: " + bad + `:1 (document 1): GuardPolicy "bad" is invalid: spec.rules[0].cel.expression: Invalid value: "object.": compilation failed: ERROR: <input>:1:8: Syntax error: no viable alternative at input '.'` + "\n"},
	})
}

// TestVAPWebhookPolicies writes the example policy reduced to the rules
// the webhook keeps: all but production-replicas, which the compiled
// policy enforces alone.
func TestVAPWebhookPolicies(t *testing.T) {
	out := filepath.Join(t.TempDir(), "webhook.yaml")
	r := crdguard(t, "", "vap", "--policies", examplePolicy, "--webhook-policies", out)
	if r.code != ExitOK {
		t.Fatalf("exit code = %d; stderr: %s", r.code, r.stder)
	}
	docs, err := manifest.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("want one GuardPolicy, got %d documents", len(docs))
	}
	rules, _, _ := unstructured.NestedSlice(docs[0].Object.Object, "spec", "rules")
	var names []string
	for _, r := range rules {
		names = append(names, r.(map[string]any)["name"].(string))
	}
	if want := []string{"resources", "default-cpu-limit", "image-version", "safe-updates", "protect-data"}; !slices.Equal(names, want) {
		t.Errorf("rules = %q, want %q", names, want)
	}
	// What it writes is a valid GuardPolicy that crdguard accepts.
	if r := crdguard(t, "", "vap", "--policies", out, "--check"); r.code != ExitOK || !strings.Contains(r.stdout, "GuardPolicy mysql-safety\n") {
		t.Errorf("the written policy does not load: exit %d\n%s%s", r.code, r.stdout, r.stder)
	}
}
