package testsuite

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/filetree"
)

// unsafeCase is examples/mysql/unsafe.yaml with expect.
func unsafeCase(expect string) string {
	return "- name: unsafe\n  operation: CREATE\n  object: {file: unsafe.yaml}\n  expect:\n" + expect
}

// outcome renders a case result for comparison.
func outcome(r CaseResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "passed=%v", r.Passed())
	if r.Err != nil {
		fmt.Fprintf(&b, " error=%v", r.Err)
	}
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "\n%v %s: want %s, got %s", c.OK, c.Subject, c.Want, c.Got)
	}
	for _, f := range r.Unexpected {
		fmt.Fprintf(&b, "\nunexpected %s %s/%s %s", f.Enforcement, f.Policy, f.Rule, f.Field)
	}
	return b.String()
}

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name, cases, want string
		// suite is what the suite says before its cases; header when "".
		suite string
	}{{
		name: "every finding listed",
		cases: unsafeCase(`    result: denied
    rules:
    - {policy: mysql-safety, rule: resources, result: denied, fields: [spec.resources.limits.memory]}
    - {policy: mysql-safety, rule: image-version, result: denied, fields: [spec.image]}
    - {policy: mysql-safety, rule: production-replicas, result: warned, fields: [spec.replicas]}
`),
		want: `passed=true
true result: want denied, got denied
true mysql-safety/resources: want denied at [spec.resources.limits.memory], got denied at [spec.resources.limits.memory]
true mysql-safety/image-version: want denied at [spec.image], got denied at [spec.image]
true mysql-safety/production-replicas: want warned at [spec.replicas], got warned at [spec.replicas]`,
	}, {
		name:  "a wrong result",
		cases: unsafeCase("    result: allowed\n    allowOtherFindings: true\n"),
		want: `passed=false
false result: want allowed, got denied`,
	}, {
		name: "findings not listed fail the case",
		cases: unsafeCase(`    result: denied
    rules:
    - {policy: mysql-safety, rule: resources, result: denied, fields: [spec.resources.limits.memory]}
`),
		want: `passed=false
true result: want denied, got denied
true mysql-safety/resources: want denied at [spec.resources.limits.memory], got denied at [spec.resources.limits.memory]
unexpected Deny mysql-safety/image-version spec.image
unexpected Warn mysql-safety/production-replicas spec.replicas`,
	}, {
		name: "allowOtherFindings accepts them",
		cases: unsafeCase(`    result: denied
    allowOtherFindings: true
    rules:
    - {policy: mysql-safety, rule: resources, result: denied, fields: [spec.resources.limits.memory]}
`),
		want: `passed=true
true result: want denied, got denied
true mysql-safety/resources: want denied at [spec.resources.limits.memory], got denied at [spec.resources.limits.memory]`,
	}, {
		name: "fields must match exactly, and levels too",
		cases: unsafeCase(`    result: denied
    allowOtherFindings: true
    rules:
    - {policy: mysql-safety, rule: resources, result: denied, fields: [spec.resources.limits.memory, spec.resources.limits.cpu]}
    - {policy: mysql-safety, rule: image-version, result: denied, fields: [spec.version]}
    - {policy: mysql-safety, rule: production-replicas, result: denied, fields: [spec.replicas]}
`),
		want: `passed=false
true result: want denied, got denied
false mysql-safety/resources: want denied at [spec.resources.limits.memory, spec.resources.limits.cpu], got denied at [spec.resources.limits.memory]
false mysql-safety/image-version: want denied at [spec.version], got denied at [spec.image]
false mysql-safety/production-replicas: want denied at [spec.replicas], got warned at [spec.replicas]`,
	}, {
		name: "an allowed rule with findings",
		cases: unsafeCase(`    result: denied
    allowOtherFindings: true
    rules:
    - {policy: mysql-safety, rule: image-version, result: allowed}
`),
		want: `passed=false
true result: want denied, got denied
false mysql-safety/image-version: want allowed (no findings), got denied at [spec.image]`,
	}, {
		name: "rules and policies that are not there",
		cases: unsafeCase(`    result: denied
    allowOtherFindings: true
    rules:
    - {policy: mysql-safety, rule: replicas, result: allowed}
    - {policy: mysql-safty, rule: resources, result: allowed}
    - {policy: schema, rule: validaton, result: allowed}
`),
		want: `passed=false
true result: want denied, got denied
false mysql-safety/replicas: want allowed (no findings), got nothing: policy mysql-safety has no rule replicas
false mysql-safty/resources: want allowed (no findings), got nothing: no policy mysql-safty among the suite's (mysql-safety)
false schema/validaton: want allowed (no findings), got nothing: the schema's findings are rules unknown-field, validation`,
	}, {
		name: "an approval note makes the object warned",
		cases: `- name: approved
  operation: UPDATE
  oldObject: {file: update/old.yaml}
  object: {file: update/approved.yaml}
  user: alice
  groups: [dba]
  expect:
    result: allowed
    rules:
    - {policy: mysql-safety, rule: safe-updates, result: audited, fields: [spec.replicas]}
`,
		want: `passed=false
false result: want allowed, got warned
true mysql-safety/safe-updates: want audited at [spec.replicas], got audited at [spec.replicas]`,
	}, {
		name: "a request nothing checks is an error",
		cases: `- name: not a MySQLCluster
  operation: CREATE
  object: {file: policy.yaml}
  expect: {result: allowed}
`,
		suite: header + "allowMissingSchemas: true\n",
		want:  `passed=false error=no CRD defines crdguard.dev/v1alpha1, Kind=GuardPolicy and no policy matches the request: the case checks nothing`,
	}, {
		// Run without its CRDs, a suite would pass most of its cases for
		// the wrong reason: a policy that finds nothing allows.
		name:  "a kind no CRD defines is an error",
		suite: strings.Replace(header, "crds: [crd.yaml]\n", "", 1),
		cases: goodCase,
		want:  `passed=false error=no CRD was loaded for db.example.io/v1 MySQLCluster, so its schema is not checked: give the CRD in the suite's crds or with crdguard test --crds, or set allowMissingSchemas: true in the suite to check it by its policies alone`,
	}, {
		name:  "unless the suite allows it",
		suite: strings.Replace(header, "crds: [crd.yaml]\n", "allowMissingSchemas: true\n", 1),
		cases: goodCase,
		want:  "passed=true\ntrue result: want allowed, got allowed",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			suite := tc.suite
			if suite == "" {
				suite = header
			}
			path := suiteDir(t, suite+"cases:\n"+tc.cases)
			for _, name := range []string{"unsafe.yaml", "update/old.yaml", "update/approved.yaml"} {
				copyExample(t, filepath.Dir(path), name)
			}
			s, err := Load(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			results := s.Run(t.Context())
			if len(results) != 1 {
				t.Fatalf("%d results, want 1", len(results))
			}
			if got := outcome(results[0]); got != tc.want {
				t.Errorf("outcome:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestRunUnknownNamespace(t *testing.T) {
	path := suiteDir(t, strings.Replace(header, "[policy.yaml]", "[selector.yaml]", 1)+"cases:\n"+goodCase)
	policy, err := os.ReadFile(filepath.Join(filepath.Dir(path), "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	selector := strings.Replace(string(policy), "    excludedNamespaces: [kube-system]\n", "    namespaceSelector: {matchLabels: {env: prod}}\n", 1)
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "selector.yaml"), []byte(selector), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Run(t.Context())[0]
	if got.Err == nil || !strings.HasSuffix(got.Err.Error(), ": give them with namespaceLabels") || !strings.Contains(got.Err.Error(), "shop") {
		t.Errorf("error = %v, want the unknown namespace shop and how to give its labels", got.Err)
	}

	// With the namespace's labels the policy matches, or not.
	s.Cases[0].NamespaceLabels = map[string]string{"env": "dev"}
	if got := s.Run(t.Context())[0]; !got.Passed() {
		t.Errorf("with labels: %s", outcome(got))
	}
}

// TestRunServerWarnings: a case's result counts the warnings kube-apiserver
// itself sends, as crdguard validate prints them: a deprecated version's
// makes an accepted object warned.
func TestRunServerWarnings(t *testing.T) {
	crd, err := os.ReadFile(filepath.Join("..", "schema", "testdata", "gadgets-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filetree.Write(t, map[string]string{
		"gadgets-crd.yaml": string(crd),
		"gadgets.yaml": `apiVersion: test.crdguard.dev/v1beta1
kind: Gadget
metadata: {name: old, namespace: shop}
spec: {size: 1}
---
apiVersion: test.crdguard.dev/v1
kind: Gadget
metadata: {name: current, namespace: shop}
spec: {size: 1}
`,
		FileName: `apiVersion: cli.crdguard.dev/v1alpha1
kind: TestSuite
metadata: {name: gadgets}
crds: [gadgets-crd.yaml]
cases:
- name: deprecated version
  operation: CREATE
  object: {file: gadgets.yaml, name: old}
  expect: {result: warned}
- name: current version
  operation: CREATE
  object: {file: gadgets.yaml, name: current}
  expect: {result: allowed}
`,
	})
	s, err := Load(t.Context(), filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range s.Run(t.Context()) {
		if !got.Passed() {
			t.Errorf("%s", outcome(got))
		}
	}
}

// TestRunNamesObjectsAsReportsDo: a case names its object as crdguard
// validate's reports do, so an object with only a generateName is its kind
// rather than "Kind shop/".
func TestRunNamesObjectsAsReportsDo(t *testing.T) {
	path := suiteDir(t, header+`cases:
`+goodCase+`- name: generated
  operation: CREATE
  object: {file: generated.yaml}
  expect: {result: allowed}
`)
	good, err := os.ReadFile(filepath.Join(filepath.Dir(path), "good.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	generated := strings.Replace(string(good), "  name: prod\n", "  generateName: prod-\n", 1)
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "generated.yaml"), []byte(generated), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Run(t.Context()) {
		if !r.Passed() {
			t.Errorf("%s: %s", r.Name, outcome(r))
		}
		got = append(got, r.Object)
	}
	if want := []string{"MySQLCluster shop/prod", "MySQLCluster"}; !slices.Equal(got, want) {
		t.Errorf("objects = %q, want %q", got, want)
	}
}
