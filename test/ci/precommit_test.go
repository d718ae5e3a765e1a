package ci

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// hook is a .pre-commit-hooks.yaml entry, the fields pre-commit reads.
type hook struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Description   string `json:"description"`
	Entry         string `json:"entry"`
	Language      string `json:"language"`
	Files         string `json:"files"`
	PassFilenames *bool  `json:"pass_filenames"`
	RequireSerial bool   `json:"require_serial"`
}

func readHooks(t *testing.T) map[string]hook {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var list []hook
	if err := yaml.UnmarshalStrict(data, &list); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	hooks := map[string]hook{}
	for _, h := range list {
		if _, dup := hooks[h.ID]; dup {
			t.Errorf("hook %s is declared twice", h.ID)
		}
		hooks[h.ID] = h
	}
	return hooks
}

// hookEntry is the script every hook's entry runs, which builds crdguard
// and runs it with the rest of the entry.
const hookEntry = "pre-commit/crdguard.sh"

// precommitIn runs h in dir as pre-commit runs a hook: its entry, then the args of
// the user's .pre-commit-config.yaml, then the staged files that match
// files (unless pass_filenames is false), with the crdguard built for
// these tests in place of the entry's script (TestPreCommitRun runs the
// script in pre-commit itself). It returns the output and the exit code,
// which pre-commit reports as the hook's.
func precommitIn(t *testing.T, dir string, h hook, args []string, staged ...string) (string, int) {
	t.Helper()
	files := regexp.MustCompile(h.Files)
	argv := append([]string{"crdguard"}, strings.Fields(strings.TrimPrefix(h.Entry, hookEntry+" "))...)
	argv = append(argv, args...)
	if h.PassFilenames == nil || *h.PassFilenames {
		for _, f := range staged {
			if files.MatchString(f) {
				argv = append(argv, f)
			}
		}
	}
	cmd := exec.Command(filepath.Join(binDir, argv[0]), argv[1:]...)
	cmd.Dir = dir
	return combinedOutput(t, cmd)
}

func TestPreCommitHooks(t *testing.T) {
	hooks := readHooks(t)
	for _, id := range []string{"crdguard-validate", "crdguard-lint"} {
		h, ok := hooks[id]
		switch {
		case !ok:
			t.Errorf("no hook %s", id)
		case h.Language != "script":
			t.Errorf("%s: language %q, want script (%s builds only the CLI)", id, h.Language, hookEntry)
		case !strings.HasPrefix(h.Entry, hookEntry+" "):
			t.Errorf("%s: entry %q does not run %s", id, h.Entry, hookEntry)
		}
	}
	if t.Failed() {
		return
	}

	validate := hooks["crdguard-validate"]
	crds := []string{"--crds", "examples/mysql/crd.yaml", "--policies", "examples/mysql/policy.yaml"}
	if out, code := precommitIn(t, root, validate, crds, "examples/mysql/good.yaml", "README.md", "cmd/crdguard/main.go"); code != 0 {
		t.Errorf("validate of a good manifest: exit %d, want 0:\n%s", code, out)
	}
	out, code := precommitIn(t, root, validate, crds, "examples/mysql/good.yaml", "examples/mysql/unsafe.yaml")
	if code != 1 || !strings.Contains(out, "examples/mysql/unsafe.yaml:2 (document 1): MySQLCluster shop/analytics is invalid (CREATE):") {
		t.Errorf("validate of an unsafe manifest: exit %d, want 1 naming it:\n%s", code, out)
	}

	lint := hooks["crdguard-lint"]
	if !regexp.MustCompile(lint.Files).MatchString("api/v1/types.go") {
		t.Errorf("lint's files %q do not match Go files", lint.Files)
	}
	out, code = precommitIn(t, root, lint, []string{"--crds", "pkg/schema/gotypes/testdata/clean/crd.yaml", "./pkg/schema/gotypes/testdata/clean"}, "pkg/schema/gotypes/testdata/clean/types.go")
	if code != 0 {
		t.Errorf("lint of clean types: exit %d, want 0:\n%s", code, out)
	}
	out, code = precommitIn(t, root, lint, []string{"--crds", "pkg/schema/gotypes/testdata/type-mismatch/crd.yaml", "./pkg/schema/gotypes/testdata/type-mismatch"}, "pkg/schema/gotypes/testdata/type-mismatch/types.go")
	if code != 1 || !strings.Contains(out, "types.go:") {
		t.Errorf("lint of mismatched types: exit %d, want 1 naming the Go file:\n%s", code, out)
	}
}
