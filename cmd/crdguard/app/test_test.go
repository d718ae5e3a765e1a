package app

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/testsuite"
)

const exampleSuite = exampleDir + testsuite.FileName

func TestTestExample(t *testing.T) {
	r := crdguard(t, "", "test", exampleDir)
	if r.code != ExitOK {
		t.Fatalf("exit code = %d, want 0\n%s%s", r.code, r.stdout, r.stder)
	}
	golden.Assert(t, "testdata/test/example.txt", []byte(r.stdout))

	r = crdguard(t, "", "test", "-q", exampleSuite)
	if want := "../../../examples/mysql/crdguard-test.yaml: TestSuite mysql-safety\n9 cases: 9 passed, 0 failed, 0 errors\n"; r.code != ExitOK || r.stdout != want {
		t.Errorf("-q: exit code %d, output\n%s\nwant 0 and\n%s", r.code, r.stdout, want)
	}
}

// exampleWithout copies examples/mysql to a temp dir without the policy's
// rule of that name, and returns the directory.
func exampleWithout(t *testing.T, rule string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(exampleDir)); err != nil {
		t.Fatal(err)
	}
	docs, err := manifest.ReadFile(filepath.Join(dir, "policy.yaml"))
	if err != nil || len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("policy.yaml: %v %v", err, docs)
	}
	policy := docs[0].Object
	rules, _, _ := unstructured.NestedSlice(policy.Object, "spec", "rules")
	kept := slices.DeleteFunc(slices.Clone(rules), func(r any) bool { return r.(map[string]any)["name"] == rule })
	if len(kept) != len(rules)-1 {
		t.Fatalf("policy.yaml has no rule %s", rule)
	}
	if err := unstructured.SetNestedSlice(policy.Object, kept, "spec", "rules"); err != nil {
		t.Fatal(err)
	}
	data, err := yaml.Marshal(policy.Object)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "policy.yaml"), string(data))
	return dir
}

// TestTestFailsWithoutARule removes a rule the example's suite relies on:
// the cases that expect its findings, or its silence, must fail.
func TestTestFailsWithoutARule(t *testing.T) {
	dir := exampleWithout(t, "resources")
	r := crdguard(t, "", "test", dir)
	if r.code != ExitViolations {
		t.Fatalf("exit code = %d, want 1\n%s%s", r.code, r.stdout, r.stder)
	}
	for _, name := range []string{
		"a cluster as the operator expects it",
		"schema errors and a dropped field",
		"an invalid name and reclaim policy",
		"limits far above requests and an image of another version",
	} {
		if !strings.Contains(r.stdout, "  FAIL  "+name+" (") {
			t.Errorf("no FAIL line for %q in\n%s", name, r.stdout)
		}
	}
	golden.Assert(t, "testdata/test/without-resources.txt", []byte(strings.ReplaceAll(r.stdout, dir, "DIR")))

	// A rule whose findings only Warn: the verdict stays, the suite fails.
	r = crdguard(t, "", "test", "-q", exampleWithout(t, "production-replicas"))
	if r.code != ExitViolations || !strings.Contains(r.stdout, "FAIL mysql-safety/production-replicas: want warned at [spec.replicas], got nothing: policy mysql-safety has no rule production-replicas") {
		t.Errorf("without production-replicas: exit code %d\n%s", r.code, r.stdout)
	}
}

func TestTestJUnit(t *testing.T) {
	dir := exampleWithout(t, "resources")
	r := crdguard(t, "", "test", "-o", "junit", dir)
	if r.code != ExitViolations {
		t.Fatalf("exit code = %d, want 1\n%s%s", r.code, r.stdout, r.stder)
	}
	golden.Assert(t, "testdata/test/without-resources.xml", []byte(strings.ReplaceAll(r.stdout, dir, "DIR")))

	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				ClassName string `xml:"classname,attr"`
				Name      string `xml:"name,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	suite, err := testsuite.Decode(filepath.Join(dir, testsuite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Tests != len(suite.Cases) || doc.Failures != 4 || len(doc.Suites) != 1 || doc.Suites[0].Name != "mysql-safety" {
		t.Fatalf("tests=%d failures=%d suites=%d, want %d, 4 and one mysql-safety", doc.Tests, doc.Failures, len(doc.Suites), len(suite.Cases))
	}
	for i, c := range doc.Suites[0].Cases {
		if c.Name != suite.Cases[i].Name || c.ClassName != filepath.Join(dir, testsuite.FileName) {
			t.Errorf("testcase %d = %s %q, want %q", i, c.ClassName, c.Name, suite.Cases[i].Name)
		}
		failing := i < 4
		switch {
		case failing && c.Failure == nil:
			t.Errorf("testcase %q has no failure", c.Name)
		case failing && (c.Failure.Message != "failed: mysql-safety/resources" || !strings.Contains(c.Failure.Text, "FAIL mysql-safety/resources: want ")):
			t.Errorf("testcase %q failure %q:\n%s", c.Name, c.Failure.Message, c.Failure.Text)
		case !failing && c.Failure != nil:
			t.Errorf("testcase %q fails: %s", c.Name, c.Failure.Message)
		}
	}
}

func TestTestExitCodes(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(exampleDir)); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		writeFile(t, path, content)
		return path
	}
	head := "apiVersion: cli.crdguard.dev/v1alpha1\nkind: TestSuite\nmetadata: {name: t}\ncrds: [crd.yaml]\npolicies: [policy.yaml]\ncases:\n"
	invalid := write("invalid.crdguard-test.yaml", head+"- name: good\n  operation: PATCH\n  object: {file: good.yaml}\n  expect: {result: allowed}\n")
	unevaluated := write("unevaluated.crdguard-test.yaml", head+"- name: a policy, not a cluster\n  operation: CREATE\n  object: {file: policy.yaml}\n  expect: {result: allowed}\n")
	empty := filepath.Join(dir, "update")

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{{
		name:   "an invalid suite",
		args:   []string{"test", exampleSuite, invalid},
		code:   ExitUsage,
		stderr: "crdguard: " + invalid + `: cases[0].operation: Unsupported value: "PATCH": supported values: "CREATE", "UPDATE", "DELETE"` + "\n",
	}, {
		name: "a case that cannot be evaluated",
		args: []string{"test", unevaluated},
		code: ExitUsage,
		stdout: unevaluated + ": TestSuite t\n" +
			"  ERROR a policy, not a cluster (CREATE GuardPolicy mysql-safety): no CRD was loaded for crdguard.dev/v1alpha1 GuardPolicy, so its schema is not checked: give the CRD in the suite's crds or with crdguard test --crds, or set allowMissingSchemas: true in the suite to check it by its policies alone\n" +
			"1 case: 0 passed, 0 failed, 1 error\n",
	}, {
		name:   "a directory without suites",
		args:   []string{"test", empty},
		code:   ExitUsage,
		stderr: "crdguard: " + empty + ": no test suite (crdguard-test.yaml or NAME.crdguard-test.yaml) in it\n",
	}, {
		name:   "an output format test does not write",
		args:   []string{"test", "-o", "json", exampleSuite},
		code:   ExitUsage,
		stderr: "crdguard: invalid argument \"json\" for \"-o, --output\" flag: unknown output format \"json\": valid formats are text, junit\nRun 'crdguard test --help' for usage.\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := crdguard(t, "", tc.args...)
			if r.code != tc.code || r.stdout != tc.stdout || r.stder != tc.stderr {
				t.Errorf("exit code %d, stdout\n%s\nstderr\n%s\nwant %d, stdout\n%s\nstderr\n%s", r.code, r.stdout, r.stder, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// exampleWithoutCRDs copies examples/mysql to a temp dir with a suite that
// names no CRDs, as a suite of the policy library does, and returns the
// directory.
func exampleWithoutCRDs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(exampleDir)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, testsuite.FileName)
	writeFile(t, path, replaceOnce(t, readFile(t, path), "\ncrds: [crd.yaml]\n", "\n"))
	return dir
}

// TestTestCRDsFlag gives a suite its CRDs on the command line: the suite
// passes with them, and each case is an error without.
func TestTestCRDsFlag(t *testing.T) {
	dir := exampleWithoutCRDs(t)
	suite := filepath.Join(dir, testsuite.FileName)

	r := crdguard(t, "", "test", "-q", "--crds", exampleCRD, dir)
	if want := suite + ": TestSuite mysql-safety\n9 cases: 9 passed, 0 failed, 0 errors\n"; r.code != ExitOK || r.stdout != want {
		t.Errorf("with --crds: exit code %d, output\n%s%s\nwant 0 and\n%s", r.code, r.stdout, r.stder, want)
	}

	// Without them every case is an error that names the kind, rather
	// than most cases passing on the policies alone.
	r = crdguard(t, "", "test", "-q", dir)
	if r.code != ExitUsage {
		t.Fatalf("without --crds: exit code = %d, want 2\n%s%s", r.code, r.stdout, r.stder)
	}
	for _, line := range []string{
		"  ERROR a cluster as the operator expects it (CREATE MySQLCluster shop/prod): no CRD was loaded for db.example.io/v1 MySQLCluster, so its schema is not checked: give the CRD in the suite's crds or with crdguard test --crds, or set allowMissingSchemas: true in the suite to check it by its policies alone\n",
		"9 cases: 0 passed, 0 failed, 9 errors\n",
	} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("without --crds: no line %q in\n%s", line, r.stdout)
		}
	}
}

func TestTestCRDsFlagErrors(t *testing.T) {
	dir := exampleWithoutCRDs(t)
	missing := filepath.Join(dir, "none.yaml")
	checkUsageErrors(t, []usageErrorCase{{
		name:   "standard input",
		args:   []string{"test", "--crds", "-", dir},
		stderr: "crdguard: --crds cannot read standard input: each suite loads the CRDs, give a file or directory\n",
	}, {
		name:   "a missing file",
		args:   []string{"test", "--crds", missing, dir},
		stderr: "crdguard: --crds: stat " + missing + ": no such file or directory\n",
	}, {
		name:   "a CRD the suite names too",
		args:   []string{"test", "--crds", exampleCRD, exampleSuite},
		stderr: "crdguard: " + exampleSuite + `: crds and policies: CustomResourceDefinition "mysqlclusters.db.example.io" is given twice: ` + exampleCRD + ":3 and " + exampleCRD + ":3; the same document is read twice: pass its path once (they are identical)\n",
	}})
}
