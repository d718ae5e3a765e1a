package testsuite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// header starts every suite of these tests: the example's CRD and policy,
// copied beside the suite.
const header = `apiVersion: cli.crdguard.dev/v1alpha1
kind: TestSuite
metadata: {name: t}
crds: [crd.yaml]
policies: [policy.yaml]
`

const goodCase = `- name: good
  operation: CREATE
  object: {file: good.yaml}
  expect: {result: allowed}
`

// suiteDir writes suite as crdguard-test.yaml beside the example's CRD,
// policy and objects, and returns its path.
func suiteDir(t *testing.T, suite string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"crd.yaml", "policy.yaml", "good.yaml", "bad.yaml"} {
		copyExample(t, dir, name)
	}
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// copyExample copies the mysql example's file name ("update/old.yaml")
// to the same name under dir, making the directories it needs.
func copyExample(t *testing.T, dir, name string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "mysql", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, suite string
		// want are the error's lines, after "<suite path>: ".
		want []string
	}{{
		name:  "unknown field",
		suite: header + "cases:\n" + goodCase + "  expected: {result: denied}\n",
		want:  []string{`unknown field "cases[0].expected"`},
	}, {
		name:  "unknown nested field",
		suite: header + "cases:\n" + strings.Replace(goodCase, "{file: good.yaml}", "{file: good.yaml, namespace: shop}", 1),
		want:  []string{`unknown field "cases[0].object.namespace"`},
	}, {
		name:  "field names are case-sensitive",
		suite: strings.Replace(header, "crds:", "CRDs:", 1) + "cases:\n" + goodCase,
		want:  []string{`unknown field "CRDs"`},
	}, {
		name:  "duplicate field",
		suite: header + "policies: [policy.yaml]\ncases:\n" + goodCase,
		want:  []string{"yaml: unmarshal errors:\n  line 6: key \"policies\" already set in map"},
	}, {
		name:  "wrong apiVersion and kind",
		suite: "apiVersion: crdguard.dev/v1alpha1\nkind: GuardPolicy\nmetadata: {name: t}\npolicies: [policy.yaml]\ncases:\n" + goodCase,
		want: []string{
			`apiVersion: Unsupported value: "crdguard.dev/v1alpha1": supported values: "cli.crdguard.dev/v1alpha1"`,
			`kind: Unsupported value: "GuardPolicy": supported values: "TestSuite"`,
		},
	}, {
		name:  "two documents",
		suite: header + "cases:\n" + goodCase + "---\n" + header,
		want:  []string{`holds 2 documents: a suite file holds one TestSuite`},
	}, {
		name:  "nothing to load, no cases",
		suite: "apiVersion: cli.crdguard.dev/v1alpha1\nkind: TestSuite\nmetadata: {name: t}\n",
		want: []string{
			`policies: Required value: a suite needs crds, policies or both`,
			`cases: Required value: a suite needs at least one case`,
		},
	}, {
		name:  "unknown operation",
		suite: header + "cases:\n" + strings.Replace(goodCase, "CREATE", "PATCH", 1),
		want:  []string{`cases[0].operation: Unsupported value: "PATCH": supported values: "CREATE", "UPDATE", "DELETE"`},
	}, {
		name:  "no expectation",
		suite: header + "cases:\n- name: good\n  operation: CREATE\n  object: {file: good.yaml}\n",
		want:  []string{`cases[0].expect: Required value: a case without an expectation tests nothing`},
	}, {
		name:  "expectation without a result",
		suite: header + "cases:\n" + strings.Replace(goodCase, "{result: allowed}", "{allowOtherFindings: true}", 1),
		want:  []string{`cases[0].expect.result: Required value`},
	}, {
		name:  "audited is a rule's result only",
		suite: header + "cases:\n" + strings.Replace(goodCase, "allowed", "audited", 1),
		want:  []string{`cases[0].expect.result: Unsupported value: "audited": supported values: "allowed", "denied", "warned"`},
	}, {
		name: "objects that do not fit the operation",
		suite: header + `cases:
- name: create
  operation: CREATE
  oldObject: {file: good.yaml}
  expect: {result: allowed}
- name: update
  operation: UPDATE
  object: {file: good.yaml}
  expect: {result: allowed}
- name: delete
  operation: DELETE
  object: {file: good.yaml}
  expect: {result: allowed}
`,
		want: []string{
			`cases[0].object: Required value`,
			`cases[0].oldObject: Forbidden: a CREATE has no old object`,
			`cases[1].oldObject: Required value`,
			`cases[2].object: Forbidden: a DELETE has no new object: give the stored object as oldObject`,
			`cases[2].oldObject: Required value`,
		},
	}, {
		name:  "duplicate case name",
		suite: header + "cases:\n" + goodCase + goodCase,
		want:  []string{`cases[1].name: Duplicate value: "good"`},
	}, {
		name: "rule expectations",
		suite: header + `cases:
- name: good
  operation: CREATE
  object: {file: good.yaml}
  expect:
    result: denied
    rules:
    - {policy: mysql-safety, rule: resources, result: denied}
    - {policy: mysql-safety, rule: image-version, result: allowed, fields: [spec.image]}
    - {rule: safe-updates, result: refused, fields: [spec.a, spec.a]}
    - {policy: mysql-safety, rule: image-version, result: allowed}
`,
		want: []string{
			`cases[0].expect.rules[0].fields: Required value: the field paths of the rule's findings`,
			`cases[0].expect.rules[1].fields: Forbidden: an allowed rule has no findings, so no fields`,
			`cases[0].expect.rules[2].policy: Required value`,
			`cases[0].expect.rules[2].result: Unsupported value: "refused": supported values: "allowed", "denied", "warned", "audited"`,
			`cases[0].expect.rules[2].fields[1]: Duplicate value: "spec.a"`,
			`cases[0].expect.rules[3]: Duplicate value: "mysql-safety/image-version allowed"`,
		},
	}, {
		name:  "missing object file",
		suite: header + "cases:\n" + strings.Replace(goodCase, "good.yaml", "nope.yaml", 1),
		want:  []string{`cases[0].object.file: Invalid value: "nope.yaml": DIR/nope.yaml: no such file or directory`},
	}, {
		name:  "missing policy file",
		suite: strings.Replace(header, "[policy.yaml]", "[policy.yaml, policies/]", 1) + "cases:\n" + goodCase,
		want:  []string{`policies[1]: Invalid value: "policies/": stat DIR/policies: no such file or directory`},
	}, {
		name:  "a file of several objects needs a name",
		suite: header + "cases:\n" + strings.Replace(goodCase, "good.yaml", "bad.yaml", 1),
		want:  []string{`cases[0].object.name: Required value: bad.yaml holds 2 objects: staging, Reporting_DB`},
	}, {
		name:  "no object of that name",
		suite: header + "cases:\n" + strings.Replace(goodCase, "{file: good.yaml}", "{file: bad.yaml, name: prod}", 1),
		want:  []string{`cases[0].object.name: Invalid value: "prod": no object of that name in bad.yaml (staging, Reporting_DB)`},
	}, {
		name:  "a policy that does not load",
		suite: strings.Replace(header, "[policy.yaml]", "[good.yaml]", 1) + "cases:\n" + goodCase,
		want:  []string{`crds and policies: DIR/good.yaml holds no GuardPolicy`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			path := suiteDir(t, tc.suite)
			_, err := Load(t.Context(), path)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			dir := filepath.Dir(path)
			want := make([]string, len(tc.want))
			for i, w := range tc.want {
				want[i] = path + ": " + strings.ReplaceAll(w, "DIR", dir)
			}
			if got := err.Error(); got != strings.Join(want, "\n") {
				t.Errorf("error:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
			}
		})
	}
}

func TestLoadMissingSuite(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	_, err := Load(t.Context(), path)
	if err == nil || err.Error() != "open "+path+": no such file or directory" {
		t.Errorf("error = %v, want the open error naming %s", err, path)
	}
}
