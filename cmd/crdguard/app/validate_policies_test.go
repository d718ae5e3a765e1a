package app

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/report"
)

const (
	examplePolicy = "../../../examples/mysql/policy.yaml"
	exampleDir    = "../../../examples/mysql/"
)

// finding renders a violation compactly for comparisons.
func finding(f report.Finding) string {
	return f.Field + " [" + f.Policy + "/" + f.Rule + "] " + string(f.Enforcement)
}

func findingsOf(res report.Result) []string {
	out := make([]string, len(res.Violations))
	for i, f := range res.Violations {
		out[i] = finding(f)
	}
	return out
}

func TestValidatePolicies(t *testing.T) {
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "--policies", examplePolicy, "--show-patches", "-o", "json", goodYAML, exampleDir+"unsafe.yaml")
	if r.code != ExitViolations {
		t.Fatalf("exit code = %d, want 1; stderr: %s", r.code, r.stder)
	}
	rep := decodeReport(t, r)
	if got := findingsOf(rep.Results[0]); len(got) != 0 {
		t.Errorf("good.yaml findings = %q, want none", got)
	}
	want := []string{
		"spec.resources.limits.memory [mysql-safety/resources] Deny",
		"spec.image [mysql-safety/image-version] Deny",
		"spec.replicas [mysql-safety/production-replicas] Warn",
	}
	assertLines(t, "unsafe.yaml findings", findingsOf(rep.Results[1]), want)
	// GuardPolicy findings point at their fields too, flow style included.
	var positions []string
	for _, f := range rep.Results[1].Violations {
		positions = append(positions, f.Field+" "+strconv.Itoa(f.Line)+":"+strconv.Itoa(f.Column))
	}
	if want := []string{"spec.resources.limits.memory 16:14", "spec.image 10:3", "spec.replicas 11:3"}; strings.Join(positions, "\n") != strings.Join(want, "\n") {
		t.Errorf("unsafe.yaml positions\n got: %q\nwant: %q", positions, want)
	}
	if m := rep.Results[1].Violations[0].Message; m != "Invalid value: limits.memory 8Gi is 8.0× requests.memory 1Gi; allowed more than 1.5× and less than 4×" {
		t.Errorf("ratio message = %q", m)
	}
	patches := rep.Results[1].Patches
	if len(patches) != 1 || patches[0].Op != "add" || patches[0].Path != "/spec/resources/limits/cpu" || patches[0].Value != "2" {
		t.Errorf("patches = %+v, want the default cpu limit", patches)
	}
	if len(rep.Results[1].Warnings) != 0 {
		t.Errorf("warnings = %q: a Warn finding is a violation, not also a warning", rep.Results[1].Warnings)
	}
}

func TestValidateUnsafeUpdateAndApproval(t *testing.T) {
	args := []string{"validate", "--crds", exampleCRD, "--policies", examplePolicy, "--old", exampleDir + "update/old.yaml", "-o", "json"}
	r := crdguard(t, "", append(args, exampleDir+"update/new.yaml")...)
	if r.code != ExitViolations {
		t.Fatalf("exit code = %d, want 1; stderr: %s", r.code, r.stder)
	}
	want := []string{
		"spec.replicas [mysql-safety/safe-updates] Deny",
		"spec.storage.size [mysql-safety/safe-updates] Deny",
		"spec.storage.storageClassName [mysql-safety/safe-updates] Deny",
		"spec.version [mysql-safety/safe-updates] Deny",
		"spec.users[1] [mysql-safety/safe-updates] Deny",
	}
	res := decodeReport(t, r).Results[0]
	assertLines(t, "unsafe update findings", findingsOf(res), want)
	if res.Operation != "UPDATE" {
		t.Errorf("operation = %s", res.Operation)
	}

	// The approved shrink: a dba lifts it, anyone else is told who may.
	r = crdguard(t, "", append(args, "--user", "alice", "--groups", "dba", exampleDir+"update/approved.yaml")...)
	if r.code != ExitOK {
		t.Fatalf("approved by a dba: exit code = %d, want 0\n%s", r.code, r.stdout)
	}
	res = decodeReport(t, r).Results[0]
	if got := findingsOf(res); strings.Join(got, "\n") != "spec.replicas [mysql-safety/safe-updates] Audit" {
		t.Errorf("approved findings = %q, want the lifted one at Audit", got)
	}
	if len(res.Warnings) != 1 || res.Warnings[0] != "approved by alice: mysql-safety/safe-updates: consolidating replicas after the migration, ticket DB-1234" {
		t.Errorf("warnings = %q", res.Warnings)
	}
	r = crdguard(t, "", append(args, "--user", "mallory", exampleDir+"update/approved.yaml")...)
	if r.code != ExitViolations {
		t.Fatalf("not an approver: exit code = %d, want 1", r.code)
	}
	if msg := decodeReport(t, r).Results[0].Violations[0].Message; !strings.HasSuffix(msg, "(not approved: mallory may not approve policy mysql-safety; approvers: groups dba)") {
		t.Errorf("message = %q, want it to name the approvers", msg)
	}

	// An approval the old object already carries is nobody's act in this
	// update: planted by anyone, it must not approve a dba's shrink.
	r = crdguard(t, "", "validate", "--crds", exampleCRD, "--policies", examplePolicy, "-o", "json",
		"--old", exampleDir+"update/approved.yaml", "--user", "alice", "--groups", "dba", shrunk(t))
	if r.code != ExitViolations {
		t.Fatalf("an approval carried over from the old object: exit code = %d, want 1\n%s", r.code, r.stdout)
	}
	res = decodeReport(t, r).Results[0]
	if got := findingsOf(res); strings.Join(got, "\n") != "spec.storage.size [mysql-safety/safe-updates] Deny" {
		t.Errorf("findings = %q, want the shrink denied", got)
	}
	if want := "ignored: crdguard.dev/approve is unchanged from the stored object; an approval counts only in the request that writes it"; len(res.Warnings) != 1 || res.Warnings[0] != want {
		t.Errorf("warnings = %q, want %q", res.Warnings, want)
	}
}

// shrunk is update/approved.yaml with a smaller volume, its approval kept.
func shrunk(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shrunk.yaml")
	writeFile(t, path, replaceOnce(t, readFile(t, exampleDir+"update/approved.yaml"), "size: 500Gi", "size: 400Gi"))
	return path
}

func TestValidateDelete(t *testing.T) {
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "--policies", examplePolicy, "--delete", "-o", "json", exampleDir+"delete/ephemeral.yaml", goodYAML)
	if r.code != ExitViolations {
		t.Fatalf("exit code = %d, want 1; stderr: %s", r.code, r.stder)
	}
	rep := decodeReport(t, r)
	if got := findingsOf(rep.Results[0]); strings.Join(got, "\n") != "<nil> [mysql-safety/protect-data] Deny" || rep.Results[0].Operation != "DELETE" {
		t.Errorf("ephemeral delete: %s %q", rep.Results[0].Operation, got)
	}
	if !rep.Results[1].Allowed {
		t.Errorf("deleting a cluster whose volumes are retained is allowed: %+v", rep.Results[1])
	}
	if r := crdguard(t, "", "validate", "--delete", "--old", goodYAML, goodYAML); r.code != ExitUsage {
		t.Errorf("--delete with --old: exit %d, want 2", r.code)
	}
}

func TestValidateInvalidPolicy(t *testing.T) {
	policy := `apiVersion: crdguard.dev/v1alpha1
kind: GuardPolicy
metadata: {name: broken}
spec:
  match:
    resources: [{kinds: [Pod]}]
  rules:
  - name: RULE
    cel: {expression: "true"}
`
	tests := []struct {
		name, replace, with, stderr string
	}{
		{"schema enum", "  match:", "  enforcement: Block\n  match:",
			`crdguard: -:1 (document 1): GuardPolicy "broken" is invalid: [spec.enforcement: Unsupported value: "Block": supported values: "Deny", "Warn", "Audit", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]` + "\n"},
		{"CEL marker: one rule kind", "    cel:", "    deletion: {}\n    cel:",
			`crdguard: -:1 (document 1): GuardPolicy "broken" is invalid: spec.rules[0]: Invalid value: exactly one of resources, imageVersion, transitions, deletion, cel, defaults and versionTable must be set` + "\n"},
		{"Go validation: CEL compiles", `"true"`, `"object.spec.nope("`,
			`crdguard: -:1 (document 1): GuardPolicy "broken" is invalid: spec.rules[0].cel.expression: Invalid value: "object.spec.nope(": compilation failed: ERROR: <input>:1:18: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(strings.Replace(policy, "RULE", "rule", 1), tt.replace, tt.with, 1)
			r := crdguard(t, in, "validate", "--policies", "-", goodYAML)
			if r.code != ExitUsage || r.stder != tt.stderr {
				t.Errorf("exit %d, stderr\n got: %q\nwant: %q", r.code, r.stder, tt.stderr)
			}
		})
	}
}

func TestValidateNamespaceSelector(t *testing.T) {
	policy := `apiVersion: crdguard.dev/v1alpha1
kind: GuardPolicy
metadata: {name: prod-only}
spec:
  match:
    resources: [{group: db.example.io, kinds: [MySQLCluster]}]
    namespaceSelector: {matchLabels: {tier: prod}}
  rules:
  - name: no-deletes
    deletion: {}
`
	dir := t.TempDir()
	writeFile(t, dir+"/policy.yaml", policy)
	writeFile(t, dir+"/namespaces.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {tier: prod}}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: lab}\n")
	lab := strings.Replace(strings.Replace(readFile(t, goodYAML), "namespace: shop", "namespace: lab", 1), "name: prod", "name: test", 1)
	writeFile(t, dir+"/lab.yaml", lab)

	r := crdguard(t, "", "validate", "--crds", exampleCRD, "--policies", dir+"/policy.yaml", "--delete", "-o", "json", dir+"/namespaces.yaml", goodYAML, dir+"/lab.yaml")
	rep := decodeReport(t, r)
	var got []string
	for _, res := range rep.Results {
		got = append(got, res.Kind+" "+res.Namespace+"/"+res.Name+" "+strings.Join(findingsOf(res), ","))
	}
	want := []string{
		"Namespace /shop ", "Namespace /lab ",
		"MySQLCluster shop/prod <nil> [prod-only/no-deletes] Deny",
		"MySQLCluster lab/test ",
	}
	assertLines(t, "results", got, want)

	// Standard input gives its Namespaces too, and is still validated.
	stdin := readFile(t, dir+"/namespaces.yaml") + "---\n" + readFile(t, goodYAML)
	r = crdguard(t, stdin, "validate", "--crds", exampleCRD, "--policies", dir+"/policy.yaml", "--delete", "-o", "json", "-")
	got = nil
	for _, res := range decodeReport(t, r).Results {
		got = append(got, res.Kind+" "+res.Namespace+"/"+res.Name+" "+strings.Join(findingsOf(res), ","))
	}
	assertLines(t, "results from standard input", got, want[:3])

	// Without the Namespace, the policy can neither match nor be skipped.
	args := []string{"validate", "--crds", exampleCRD, "--policies", dir + "/policy.yaml", "--delete", "-o", "json"}
	r = crdguard(t, "", append(args, goodYAML)...)
	wantErr := "the labels of namespace shop are unknown, and GuardPolicy prod-only selects namespaces by label: give them with a Namespace manifest among the inputs or --namespace-labels shop=KEY=VALUE,..."
	if res := decodeReport(t, r).Results[0]; r.code != ExitUsage || res.Error != wantErr {
		t.Errorf("unknown namespace: exit %d, error %q; want exit 2, %q", r.code, res.Error, wantErr)
	}
	for _, tc := range []struct {
		labels string
		code   int
	}{
		{"shop=tier=prod,team=db", ExitViolations},
		{"shop=", ExitOK},
		// Every namespace not named otherwise, for CI runs over many.
		{"*=tier=prod", ExitViolations},
		{"*=", ExitOK},
	} {
		if r := crdguard(t, "", append(args, "--namespace-labels", tc.labels, goodYAML)...); r.code != tc.code {
			t.Errorf("--namespace-labels %s: exit %d, want %d\n%s%s", tc.labels, r.code, tc.code, r.stdout, r.stder)
		}
	}
	// A namespace's own labels win over those of every namespace.
	if r := crdguard(t, "", append(args, "--namespace-labels", "*=tier=prod", "--namespace-labels", "shop=", goodYAML)...); r.code != ExitOK {
		t.Errorf("--namespace-labels '*=tier=prod' and shop=: exit %d, want 0\n%s%s", r.code, r.stdout, r.stder)
	}
	if r := crdguard(t, "", append(args, "--namespace-labels", "*=", dir+"/namespaces.yaml", goodYAML)...); r.code != ExitViolations {
		t.Errorf("--namespace-labels '*=' and the shop Namespace among the inputs: exit %d, want 1\n%s%s", r.code, r.stdout, r.stder)
	}
	if r := crdguard(t, "", append(args, "--namespace-labels", "shop", goodYAML)...); r.code != ExitUsage || r.stder != "crdguard: --namespace-labels \"shop\": want NAMESPACE=KEY=VALUE,... (NAMESPACE= for none)\n" {
		t.Errorf("malformed --namespace-labels: exit %d, stderr %q", r.code, r.stder)
	}
}
