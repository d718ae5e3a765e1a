package ci

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/hacktools"
)

// TestPreCommitRun runs docs/ci.md's pre-commit configuration with the real
// pre-commit (the Debian package, from hack/tools/install.sh) in a
// repository laid out as kubebuilder scaffolds one, with the hooks of this
// checkout's HEAD: commit a change to the hooks before running it.
// pre-commit builds the hooks' crdguard once, from a clone of HEAD, with
// the module cache of this machine; it reaches nothing but the Go module
// proxy, for a module the cache lacks.
func TestPreCommitRun(t *testing.T) {
	precommit, err := hacktools.Path(t.Context(), "pre-commit", nil)
	if err != nil {
		t.Fatal(err)
	}
	head := run(t, root, nil, "git", "rev-parse", "HEAD")
	repo := kubebuilderRepository(t)

	var config map[string][]map[string]any
	if err := yaml.Unmarshal([]byte(docExamples(t)["pre-commit"]), &config); err != nil {
		t.Fatal(err)
	}
	if len(config["repos"]) != 1 {
		t.Fatalf("the example has %d repos, want crdguard's alone", len(config["repos"]))
	}
	config["repos"][0]["repo"] = "file://" + root
	config["repos"][0]["rev"] = head
	data, err := yaml.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, repo, map[string]string{".pre-commit-config.yaml": string(data)})
	run(t, repo, nil, "git", "add", "-A")

	home := t.TempDir()
	env := []string{"PRE_COMMIT_HOME=" + home}
	precommitRun := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(precommit, append([]string{"run", "--verbose", "--color=never"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), env...)
		return combinedOutput(t, cmd)
	}

	if out, code := precommitRun("--all-files"); code != 0 {
		t.Fatalf("pre-commit run --all-files: exit %d, want 0:\n%s", code, out)
	}
	// The hooks built the CLI alone, into the hooks' checkout.
	built, err := filepath.Glob(filepath.Join(home, "*", ".bin", "*"))
	if err != nil || len(built) != 1 || filepath.Base(built[0]) != "crdguard" {
		t.Errorf("the hooks built %q, want crdguard alone", built)
	}
	if envs, _ := filepath.Glob(filepath.Join(home, "*", "golangenv-*")); len(envs) != 0 {
		t.Errorf("pre-commit made Go environments %q: it ran go install ./...", envs)
	}

	// A commit of files without custom resources passes, and says why.
	for _, file := range []string{"config/samples/kustomization.yaml", "config/samples/apps_v1_deployment.yaml"} {
		out, code := precommitRun("--files", file)
		if code != 0 || !strings.Contains(out, "crdguard: note: no custom resource to check in "+file+": passed (--allow-no-custom-resources)") {
			t.Errorf("pre-commit run --files %s: exit %d, want 0 with a note:\n%s", file, code, out)
		}
	}

	// A commit of an invalid sample fails, naming the field.
	writeTree(t, repo, map[string]string{"config/samples/apps_v1_cache.yaml": strings.Replace(readTestdata(t, "config/samples/cache.yaml"), "replicas: 2", "replicas: 0", 1)})
	out, code := precommitRun("--files", "config/samples/apps_v1_cache.yaml", "config/samples/kustomization.yaml")
	if code != 1 || !strings.Contains(out, "config/samples/apps_v1_cache.yaml:7:3: spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1") {
		t.Errorf("pre-commit run on an invalid sample: exit %d, want 1 naming spec.replicas:\n%s", code, out)
	}
}

// kubebuilderRepository is a git repository laid out as kubebuilder
// scaffolds an operator: PROJECT, go.mod, api/v1, config/crd/bases,
// config/samples with its kustomization.yaml and a Deployment sample
// beside the custom resources, and config/policies; testdata/operator
// plus what a scaffold adds.
func kubebuilderRepository(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS(filepath.Join(root, "test", "ci", operator))); err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	apimachinery := run(t, root, nil, "go", "list", "-m", "-f", "{{.Version}}", "k8s.io/apimachinery")
	writeTree(t, repo, map[string]string{
		"PROJECT": "domain: example.io\nlayout:\n- go.kubebuilder.io/v4\nprojectName: mysql-operator\nrepo: example.io/mysql-operator\nresources:\n" +
			"- api: {crdVersion: v1, namespaced: true}\n  domain: example.io\n  group: apps\n  kind: Cache\n  path: example.io/mysql-operator/api/v1\n  version: v1\nversion: \"3\"\n",
		"go.mod": "module example.io/mysql-operator\n\ngo 1.25\n\nrequire k8s.io/apimachinery " + apimachinery + "\n",
		// crdguard's go.sum holds every sum the API types need.
		"go.sum":                                 string(goSum),
		"config/samples/kustomization.yaml":      "## Append samples of your project ##\nresources:\n- cache.yaml\n- mysqlcluster.yaml\n# +kubebuilder:scaffold:manifestskustomizesamples\n",
		"config/samples/apps_v1_deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cache-client\n  namespace: shop\nspec:\n  selector:\n    matchLabels: {app: cache-client}\n  template:\n    metadata:\n      labels: {app: cache-client}\n    spec:\n      containers:\n      - name: client\n        image: registry.example.io/cache-client:v1\n",
	})
	// go.mod as go mod tidy leaves it: the lint hook loads the API types
	// and must find nothing to add.
	run(t, repo, nil, "go", "mod", "tidy")
	run(t, repo, nil, "git", "init", "--quiet")
	return repo
}

// writeTree writes files, by path relative to dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTestdata is a file of testdata/operator.
func readTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "test", "ci", operator, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// run runs name with args in dir and returns its trimmed output; failing
// fails the test.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}
