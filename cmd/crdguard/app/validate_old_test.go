package app

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/crdguard/crdguard/internal/filetree"
)

// Under --old, an input without a previous version and an old object
// without an input are errors by default: a rename must not turn an
// UPDATE, and its transition rules, into a CREATE in silence.
// --unpaired=create accepts both, with a note on stderr each.
func TestValidateUnpaired(t *testing.T) {
	good := readFile(t, goodYAML)
	old := readFile(t, "testdata/old-good.yaml")
	dir := filetree.Write(t, map[string]string{
		"renamed.yaml":   replaceOnce(t, good, "name: prod\n", "name: prod-v2\n"),
		"moved.yaml":     replaceOnce(t, good, "namespace: shop\n", "namespace: store\n"),
		"good.yaml":      good,
		"configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n",
		"old.yaml":       old,
		// The old versions of prod and of a deleted staging.
		"old-two.yaml": old + "---\n" + replaceOnce(t, old, "name: prod\n", "name: staging\n"),
	})
	path := func(name string) string { return filepath.Join(dir, name) }
	noOld := func(name, ns, input string) string {
		return path(input) + `:1 (document 1): error: MySQLCluster ` + ns + `/` + name + ` has no previous version in --old ` + path("old.yaml") +
			`: no object there has apiVersion db.example.io/v1, kind MySQLCluster, namespace "` + ns + `" and name "` + name + `"; ` +
			`an object renamed or moved to another namespace is no UPDATE, and its transition rules would not run (--unpaired=create validates it as a CREATE)` + "\n"
	}
	noInput := func(name string, file string, line, doc int) string {
		return fmt.Sprintf(`%s:%d (document %d): error: MySQLCluster shop/%s in --old pairs with no input: no input has apiVersion db.example.io/v1, kind MySQLCluster, namespace "shop" and name "%s"; `+
			"if it was deleted or renamed, --unpaired=create accepts that with a note\n", path(file), line, doc, name, name)
	}
	const downgrade = `  * %s:7:3: spec.version: Invalid value: "8.0.36": the MySQL version may not be downgraded` + "\n"
	for _, tc := range []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{
			name:   "renamed",
			args:   []string{"--old", path("old.yaml"), path("renamed.yaml")},
			code:   ExitUsage,
			stdout: noOld("prod-v2", "shop", "renamed.yaml") + noInput("prod", "old.yaml", 1, 1) + "2 objects: 0 allowed, 0 denied, 0 skipped, 2 errors\n",
		},
		{
			name:   "moved to another namespace",
			args:   []string{"--old", path("old.yaml"), path("moved.yaml")},
			code:   ExitUsage,
			stdout: noOld("prod", "store", "moved.yaml") + noInput("prod", "old.yaml", 1, 1) + "2 objects: 0 allowed, 0 denied, 0 skipped, 2 errors\n",
		},
		{
			name: "deleted",
			args: []string{"--old", path("old-two.yaml"), path("good.yaml")},
			code: ExitUsage,
			stdout: path("good.yaml") + ":1 (document 1): MySQLCluster shop/prod is invalid (UPDATE):\n" + fmt.Sprintf(downgrade, path("good.yaml")) +
				noInput("staging", "old-two.yaml", 12, 2) + "2 objects: 0 allowed, 1 denied, 0 skipped, 1 error\n",
		},
		{
			name:   "renamed, --unpaired=create",
			args:   []string{"--old", path("old.yaml"), "--unpaired", "create", path("renamed.yaml")},
			code:   ExitOK,
			stdout: path("renamed.yaml") + ":1 (document 1): MySQLCluster shop/prod-v2 is valid (CREATE)\n1 object: 1 allowed, 0 denied, 0 skipped, 0 errors\n",
			stderr: "crdguard: note: " + path("renamed.yaml") + ":1 (document 1): MySQLCluster shop/prod-v2 has no previous version in --old: validated as a CREATE (--unpaired=create)\n" +
				"crdguard: note: " + path("old.yaml") + ":1 (document 1): MySQLCluster shop/prod in --old pairs with no input: deleted or renamed\n",
		},
		{
			name: "deleted, --unpaired=create",
			args: []string{"--old", path("old-two.yaml"), "--unpaired=CREATE", path("good.yaml")},
			code: ExitViolations,
			stdout: path("good.yaml") + ":1 (document 1): MySQLCluster shop/prod is invalid (UPDATE):\n" + fmt.Sprintf(downgrade, path("good.yaml")) +
				"1 object: 0 allowed, 1 denied, 0 skipped, 0 errors\n",
			stderr: "crdguard: note: " + path("old-two.yaml") + ":12 (document 2): MySQLCluster shop/staging in --old pairs with no input: deleted or renamed\n",
		},
		{
			// Nothing checks a kind no CRD defines: it is skipped, paired or not.
			name: "a kind no CRD defines",
			args: []string{"--old", path("old.yaml"), path("good.yaml"), path("configmap.yaml")},
			code: ExitViolations,
			stdout: path("good.yaml") + ":1 (document 1): MySQLCluster shop/prod is invalid (UPDATE):\n" + fmt.Sprintf(downgrade, path("good.yaml")) +
				path("configmap.yaml") + ":1 (document 1): ConfigMap shop/settings skipped: no CustomResourceDefinition defines /v1, Kind=ConfigMap\n" +
				"2 objects: 0 allowed, 1 denied, 1 skipped, 0 errors\n",
			stderr: "crdguard: warning: skipped 1 object whose kind no CRD defines: v1 ConfigMap (1)\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := crdguard(t, "", append([]string{"validate", "--crds", exampleCRD}, tc.args...)...)
			if r.code != tc.code || r.stdout != tc.stdout || r.stder != tc.stderr {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant:\n%s", r.code, tc.code, r.stdout, tc.stdout, r.stder, tc.stderr)
			}
		})
	}
	t.Run("unknown mode", func(t *testing.T) {
		checkUsageErrors(t, []usageErrorCase{{
			name:   "--unpaired=x",
			args:   []string{"validate", "--crds", exampleCRD, "--old", path("old.yaml"), "--unpaired", "x", path("good.yaml")},
			stderr: "crdguard: invalid argument \"x\" for \"--unpaired\" flag: unknown value \"x\": valid values are error, create\nRun 'crdguard validate --help' for usage.\n",
		}})
	})
}
