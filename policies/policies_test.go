// Package policies_test runs the policy library's suites through
// `crdguard test`, each against its operator's real CRDs from the Go
// module proxy (internal/corpus), as a platform team runs them against the
// release it installs.
package policies_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/cmd/crdguard/app"
	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/testsuite"
)

// library is every operator of the library, by directory, with the CRDs
// its suite runs against.
var library = []struct {
	dir  string
	crds corpus.Set
}{
	{"cert-manager", corpus.CertManager},
	{"eck", corpus.ECK},
	{"mongodb-community", corpus.MongoDBCommunity},
	{"prometheus-operator", corpus.PrometheusOperator},
}

// crdguard runs the CLI in-process and returns its exit code and stdout
// (stderr is appended, for the failure messages).
func crdguard(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := app.Run(t.Context(), args, app.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return code, out.String() + errOut.String()
}

func crdsOf(t *testing.T, set corpus.Set) string {
	t.Helper()
	path, err := set.Path()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// A suite added without an entry in library would run nowhere.
func TestLibraryListsEverySuite(t *testing.T) {
	suites, err := testsuite.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, s := range suites {
		dirs = append(dirs, filepath.Dir(s))
	}
	var listed []string
	for _, op := range library {
		listed = append(listed, op.dir)
	}
	if !slices.Equal(dirs, listed) {
		t.Errorf("suites in %v, library lists %v", dirs, listed)
	}
}

func TestSuites(t *testing.T) {
	for _, op := range library {
		t.Run(op.dir, func(t *testing.T) {
			t.Parallel()
			suite, err := testsuite.Decode(filepath.Join(op.dir, testsuite.FileName))
			if err != nil {
				t.Fatal(err)
			}
			code, out := crdguard(t, "test", "-q", "--crds", crdsOf(t, op.crds), op.dir)
			want := fmt.Sprintf("%d cases: %d passed, 0 failed, 0 errors\n", len(suite.Cases), len(suite.Cases))
			if code != app.ExitOK || !strings.HasSuffix(out, want) {
				t.Errorf("exit code %d, output\n%s\nwant 0 and a last line %q", code, out, want)
			}
		})
	}
}

// Without the operator's CRDs a suite must fail rather than pass on the
// policies alone: each case is an error that says no CRD was loaded.
func TestSuitesFailWithoutTheCRDs(t *testing.T) {
	for _, op := range library {
		t.Run(op.dir, func(t *testing.T) {
			t.Parallel()
			code, out := crdguard(t, "test", "-q", op.dir)
			if code != app.ExitUsage || !strings.Contains(out, ": no CRD was loaded for ") || !strings.Contains(out, " 0 passed, 0 failed, ") {
				t.Errorf("exit code %d, output\n%s\nwant 2 and every case an error naming the kind without a CRD", code, out)
			}
		})
	}
}

// TestSuitesFailWithoutEachRule replaces each rule of each policy with one
// of the same name that finds nothing: a case must fail every time, so
// that no rule's behaviour goes untested.
func TestSuitesFailWithoutEachRule(t *testing.T) {
	for _, op := range library {
		crds := crdsOf(t, op.crds)
		docs, err := manifest.ReadFile(filepath.Join(op.dir, "policy.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range docs {
			if doc.Err != nil {
				t.Fatalf("%s: %v", doc.Position(), doc.Err)
			}
			rules, _, err := unstructured.NestedSlice(doc.Object.Object, "spec", "rules")
			if err != nil {
				t.Fatalf("%s: %v", doc.Position(), err)
			}
			for j, rule := range rules {
				name := rule.(map[string]any)["name"].(string)
				policy := doc.Object.GetName()
				t.Run(op.dir+"/"+policy+"/"+name, func(t *testing.T) {
					t.Parallel()
					dir := withoutRule(t, op.dir, docs, i, j)
					code, out := crdguard(t, "test", "-q", "--crds", crds, dir)
					if code != app.ExitViolations || !strings.Contains(out, "FAIL "+policy+"/"+name+": want ") {
						t.Errorf("with %s/%s finding nothing: exit code %d, output\n%s\nwant 1 and a failed expectation of the rule", policy, name, code, out)
					}
				})
			}
		}
	}
}

// withoutRule copies the operator's directory to a temp dir where rule j
// of policy i is a CEL rule of the same name that always holds, and
// returns the directory.
func withoutRule(t *testing.T, dir string, docs []manifest.Document, i, j int) string {
	t.Helper()
	tmp := t.TempDir()
	if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	var policies [][]byte
	for k, doc := range docs {
		obj := doc.Object.DeepCopy()
		if k == i {
			rules, _, _ := unstructured.NestedSlice(obj.Object, "spec", "rules")
			rules[j] = map[string]any{"name": rules[j].(map[string]any)["name"], "cel": map[string]any{"expression": "true"}}
			if err := unstructured.SetNestedSlice(obj.Object, rules, "spec", "rules"); err != nil {
				t.Fatal(err)
			}
		}
		data, err := yaml.Marshal(obj.Object)
		if err != nil {
			t.Fatal(err)
		}
		policies = append(policies, data)
	}
	if err := os.WriteFile(filepath.Join(tmp, "policy.yaml"), bytes.Join(policies, []byte("---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return tmp
}

// The suites check which fields a rule finds, not its messages: a refused
// upgrade must also name the path to take, as the GuardPolicy reference
// shows.
func TestUpgradePathMessages(t *testing.T) {
	tests := []struct {
		dir      string
		crds     corpus.Set
		old, cur string
		want     string
	}{
		{
			dir: "eck", crds: corpus.ECK, old: "update/old.yaml", cur: "update/major.yaml",
			want: `update/major.yaml:8:3: [eck-elasticsearch/upgrade-path] spec.version: Invalid value: "9.0.1": 8.13.4 → 9.0.1 is not an allowed step; go through 8.18 - 8.19`,
		},
		{
			dir: "eck", crds: corpus.ECK, old: "update/before-last-minor-7.yaml", cur: "update/major-8.yaml",
			want: `update/major-8.yaml:8:3: [eck-elasticsearch/upgrade-path] spec.version: Invalid value: "8.1.3": 7.16.3 → 8.1.3 is not an allowed step; upgradePaths has no step from 7.16.3`,
		},
		{
			dir: "mongodb-community", crds: corpus.MongoDBCommunity, old: "update/old.yaml", cur: "update/skip-major.yaml",
			want: `update/skip-major.yaml:15:3: [mongodb-community/upgrade-path] spec.version: Invalid value: "8.0.4": 6.0.18 → 8.0.4 is not an allowed step; go through 7.0`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.dir+"/"+tt.cur, func(t *testing.T) {
			t.Chdir(tt.dir)
			code, out := crdguard(t, "validate", "--crds", crdsOf(t, tt.crds), "--policies", "policy.yaml", "--old", tt.old, tt.cur)
			if code != app.ExitViolations || !strings.Contains(out, "\n  * "+tt.want+"\n") {
				t.Errorf("exit code %d, output\n%s\nwant 1 and the finding\n%s", code, out, tt.want)
			}
		})
	}
}
