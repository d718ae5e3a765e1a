package ci

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// action is the part of action.yml's schema the action uses.
type action struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Author      string `json:"author"`
	Branding    struct {
		Icon  string `json:"icon"`
		Color string `json:"color"`
	} `json:"branding"`
	Inputs map[string]struct {
		Description string `json:"description"`
		Required    bool   `json:"required"`
		Default     string `json:"default"`
	} `json:"inputs"`
	Outputs map[string]struct {
		Description string `json:"description"`
		Value       string `json:"value"`
	} `json:"outputs"`
	Runs struct {
		Using string `json:"using"`
		Steps []struct {
			Name  string            `json:"name"`
			ID    string            `json:"id"`
			If    string            `json:"if"`
			Shell string            `json:"shell"`
			Env   map[string]string `json:"env"`
			Run   string            `json:"run"`
			Uses  string            `json:"uses"`
			With  map[string]string `json:"with"`
		} `json:"steps"`
	} `json:"runs"`
}

func readAction(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.UnmarshalStrict(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// TestActionMetadata checks action.yml as GitHub reads it: a composite
// action whose every input is documented and used, whose scripts exist,
// and whose outputs come from its steps.
func TestActionMetadata(t *testing.T) {
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	if a.Name == "" || a.Description == "" {
		t.Error("the Marketplace needs name and description")
	}
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(string(data), -1) {
		used[m[1]] = true
	}
	for name, in := range a.Inputs {
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
		if !used[name] {
			t.Errorf("input %s is never used", name)
		}
	}
	for name := range used {
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("the steps use input %s, which is not declared", name)
		}
	}
	ids := map[string]bool{}
	for _, s := range a.Runs.Steps {
		ids[s.ID] = true
		if s.Run == "" {
			continue
		}
		if s.Shell != "bash" {
			t.Errorf("step %q: a composite step that runs needs shell bash, has %q", s.Name, s.Shell)
		}
		script := regexp.MustCompile(`\$GITHUB_ACTION_PATH/(\S+?)"`).FindStringSubmatch(s.Run)
		if script == nil {
			t.Errorf("step %q runs %q, not a script of the action", s.Name, s.Run)
			continue
		}
		info, err := os.Stat(filepath.Join(root, script[1]))
		if err != nil || info.Mode()&0o111 == 0 {
			t.Errorf("step %q: %s is not an executable file of the repository (%v)", s.Name, script[1], err)
		}
	}
	for name, out := range a.Outputs {
		m := regexp.MustCompile(`^\$\{\{ steps\.([a-z-]+)\.outputs\.[a-z-]+ \}\}$`).FindStringSubmatch(out.Value)
		if m == nil || !ids[m[1]] {
			t.Errorf("output %s = %q does not come from a step of the action", name, out.Value)
		}
	}
}

// release writes what a release publishes for this machine's platform,
// crdguard_VERSION_OS_ARCH.tar.gz and checksums.txt, under
// dir/releaseVersion, and returns dir as the file:// URL of the releases,
// and that of the same release with a checksums.txt that does not match.
func release(t *testing.T) (releases, corrupt string) {
	t.Helper()
	dir, corruptDir := t.TempDir(), t.TempDir()
	published, corruptPublished := filepath.Join(dir, releaseVersion), filepath.Join(corruptDir, releaseVersion)
	for _, d := range []string{published, corruptPublished} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	archive := "crdguard_" + strings.TrimPrefix(releaseVersion, "v") + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	f, err := os.Create(filepath.Join(published, archive))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.New()
	gz, err := gzip.NewWriterLevel(io.MultiWriter(f, sum), gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(gz)
	for _, name := range []string{"LICENSE", "crdguard"} {
		src := filepath.Join(root, name)
		if name == "crdguard" {
			src = filepath.Join(binDir, name)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []io.Closer{tw, gz, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	other := strings.Repeat("1", 64) + "  crdguard_other.tar.gz\n"
	if err := os.WriteFile(filepath.Join(published, "checksums.txt"), []byte(hex.EncodeToString(sum.Sum(nil))+"  "+archive+"\n"+other), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(published, archive), filepath.Join(corruptPublished, archive)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(corruptPublished, "checksums.txt"), []byte(strings.Repeat("0", 64)+"  "+archive+"\n"+other), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + dir, "file://" + corruptDir
}

// script runs one of the action's scripts with env as the runner and the
// workflow set it, and returns its combined output and exit code.
func script(t *testing.T, name string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(root, "action", name))
	cmd.Dir = root
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "RUNNER_TEMP=" + t.TempDir()}, env...)
	return combinedOutput(t, cmd)
}

func TestInstall(t *testing.T) {
	releases, corrupt := release(t)
	t.Run("a release is installed and put on the PATH", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "bin")
		githubPath := filepath.Join(t.TempDir(), "path")
		out, code := script(t, "install.sh", "CRDGUARD_VERSION="+releaseVersion, "CRDGUARD_RELEASES="+releases,
			"CRDGUARD_INSTALL_DIR="+dir, "GITHUB_PATH="+githubPath)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if !strings.Contains(out, releaseVersion) {
			t.Errorf("the installed crdguard does not report %s:\n%s", releaseVersion, out)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != "crdguard" {
			t.Errorf("%s holds %v, want crdguard alone", dir, entries)
		}
		if path, _ := os.ReadFile(githubPath); string(path) != dir+"\n" {
			t.Errorf("GITHUB_PATH = %q, want %q", path, dir+"\n")
		}
	})
	for _, tc := range []struct {
		name, version string
		releases      string
		want          string
	}{
		{name: "a branch is not a version", version: "main", releases: releases, want: `::error title=crdguard::install a released version: set the action's version input (v0.1.0), or use the action at a release tag; got "main"`},
		{name: "no version", version: "", releases: releases, want: `got ""`},
		{name: "an archive that does not match its checksum", version: releaseVersion, releases: corrupt, want: "does not match checksums.txt: sha256 "},
		{name: "a release that does not exist", version: "v9.9.9", releases: releases, want: "::error title=crdguard::downloading file://"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "bin")
			out, code := script(t, "install.sh", "CRDGUARD_VERSION="+tc.version, "CRDGUARD_RELEASES="+tc.releases, "CRDGUARD_INSTALL_DIR="+dir)
			if code != 2 || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want 2 with %q:\n%s", code, tc.want, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "crdguard")); err == nil {
				t.Error("crdguard was installed")
			}
		})
	}
}

// runOutputs runs run.sh with crdguard on the PATH and returns its output,
// exit code, the step outputs it set and the job summary it wrote.
func runOutputs(t *testing.T, command, args string) (string, int, map[string]string, string) {
	t.Helper()
	files := t.TempDir()
	output, summary := filepath.Join(files, "output"), filepath.Join(files, "summary")
	out, code := script(t, "run.sh", "PATH="+binDir+":"+os.Getenv("PATH"), "INPUT_COMMAND="+command, "INPUT_ARGS="+args,
		"INPUT_SUMMARY=true", "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary)
	outputs := map[string]string{}
	data, _ := os.ReadFile(output)
	for line := range strings.Lines(string(data)) {
		k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		outputs[k] = v
	}
	md, _ := os.ReadFile(summary)
	return out, code, outputs, string(md)
}

func TestRun(t *testing.T) {
	t.Run("validate: the text report in the log, SARIF and the summary beside it", func(t *testing.T) {
		out, code, outputs, summary := runOutputs(t, "validate",
			"--crds examples/mysql/crd.yaml\n--policies examples/mysql/policy.yaml   examples/mysql/unsafe.yaml")
		if code != 1 {
			t.Fatalf("exit %d, want 1 (denied):\n%s", code, out)
		}
		if !strings.Contains(out, "examples/mysql/unsafe.yaml:2 (document 1): MySQLCluster shop/analytics is invalid (CREATE):") {
			t.Errorf("the log has no text report:\n%s", out)
		}
		if outputs["exit-code"] != "1" {
			t.Errorf("exit-code output = %q, want 1", outputs["exit-code"])
		}
		var sarif struct {
			Version string `json:"version"`
			Runs    []struct {
				Results []struct {
					RuleID string `json:"ruleId"`
				} `json:"results"`
			} `json:"runs"`
		}
		data, err := os.ReadFile(outputs["sarif"])
		if err != nil {
			t.Fatalf("sarif output %q: %v", outputs["sarif"], err)
		}
		if err := json.Unmarshal(data, &sarif); err != nil {
			t.Fatal(err)
		}
		var rules []string
		for _, r := range sarif.Runs[0].Results {
			rules = append(rules, r.RuleID)
		}
		if want := []string{"mysql-safety/resources", "mysql-safety/image-version", "mysql-safety/production-replicas"}; sarif.Version != "2.1.0" || !slices.Equal(rules, want) {
			t.Errorf("SARIF %s with results %v, want 2.1.0 with %v", sarif.Version, rules, want)
		}
		if !strings.Contains(summary, "mysql-safety/resources") || !strings.HasPrefix(summary, "#") {
			t.Errorf("the job summary is not the markdown report:\n%s", summary)
		}
	})
	t.Run("an allowed object", func(t *testing.T) {
		out, code, outputs, _ := runOutputs(t, "validate", "--crds examples/mysql/crd.yaml examples/mysql/good.yaml")
		if code != 0 || outputs["exit-code"] != "0" {
			t.Errorf("exit %d, exit-code output %q, want 0:\n%s", code, outputs["exit-code"], out)
		}
	})
	t.Run("test: the text report is the summary", func(t *testing.T) {
		out, code, outputs, summary := runOutputs(t, "test", "examples/mysql")
		if code != 0 || outputs["exit-code"] != "0" || outputs["sarif"] != "" {
			t.Fatalf("exit %d, outputs %v, want 0 and no SARIF:\n%s", code, outputs, out)
		}
		if !strings.HasPrefix(summary, "```\n") || !strings.Contains(summary, "9 cases: 9 passed, 0 failed, 0 errors\n```\n") {
			t.Errorf("the job summary is not the text report in a code block:\n%s", summary)
		}
	})
	for _, tc := range []struct{ name, command, args, want string }{
		{"an unknown command", "audit", "-A", `::error title=crdguard::command must be validate, diff, lint or test, not "audit"`},
		{"no arguments", "validate", " \n ", "::error title=crdguard::args is empty: give crdguard validate its paths and flags"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code, outputs, _ := runOutputs(t, tc.command, tc.args)
			if code != 2 || outputs["exit-code"] != "2" || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, exit-code output %q, want 2 with %q:\n%s", code, outputs["exit-code"], tc.want, out)
			}
		})
	}
}

// Globs in args are expanded, as a workflow author expects of a path list,
// except the pattern of --exclude, which crdguard matches itself; one that
// matches nothing fails rather than checking less than asked.
func TestRunGlobs(t *testing.T) {
	out, code, _, _ := runOutputs(t, "validate", "--crds examples/*/crd.yaml --exclude u*.yaml examples/mysql/g*.yaml")
	if code != 0 || !strings.Contains(out, "examples/mysql/good.yaml:") {
		t.Errorf("exit %d, want 0 with examples/mysql/good.yaml validated:\n%s", code, out)
	}
	out, code, outputs, _ := runOutputs(t, "validate", "--crds examples/mysql/crd.yaml config/nowhere/*.yaml")
	if want := "::error title=crdguard::args: config/nowhere/*.yaml matches no file"; code != 2 || outputs["exit-code"] != "2" || !strings.Contains(out, want) {
		t.Errorf("exit %d, exit-code output %q, want 2 with %q:\n%s", code, outputs["exit-code"], want, out)
	}
}

// For 8,000 invalid objects of 5 findings each, the job summary is cut to
// GitHub's 1 MiB per step and the SARIF upload to its 25,000 results per
// run, each saying how much was left out and where the whole report is:
// the full-report directory the action uploads as an artifact.
func TestRunCapsReports(t *testing.T) {
	const objects, perObject = 8000, 5
	dir := t.TempDir()
	var b strings.Builder
	for i := range objects {
		fmt.Fprintf(&b, "---\napiVersion: apps.example.io/v1\nkind: Cache\nmetadata: {name: cache-%d, namespace: shop}\nspec: {replicas: 0, a: 1, b: 1, c: 1, d: 1}\n", i)
	}
	writeTree(t, dir, map[string]string{"caches.yaml": b.String()})
	crd := filepath.Join(root, "test", "ci", operator, "config", "crd", "bases", "caches.yaml")
	out, code, outputs, summary := runOutputs(t, "validate", "--crds "+crd+" "+filepath.Join(dir, "caches.yaml"))
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%.2000s", code, out)
	}

	if len(summary) > 1<<20 {
		t.Errorf("the job summary is %d bytes, more than GitHub's 1 MiB", len(summary))
	}
	kept := strings.Count(summary, "\n#### ")
	want := fmt.Sprintf("\n> [!WARNING]\n> %d of %d entries left out of this summary: GitHub keeps 1 MiB of summary per step. The full report is the artifact `crdguard-validate-report` of this run.\n", objects-kept, objects)
	if kept == 0 || kept == objects || !strings.HasSuffix(summary, want) {
		t.Errorf("the job summary keeps %d objects and ends\n%q\nwant it to end\n%q", kept, summary[max(0, len(summary)-300):], want)
	}

	type sarifLog struct {
		Runs []struct {
			Results     []json.RawMessage `json:"results"`
			Invocations []struct {
				Notifications []struct {
					Level   string `json:"level"`
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	read := func(path string) sarifLog {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var s sarifLog
		if err := json.Unmarshal(data, &s); err != nil || len(s.Runs) != 1 {
			t.Fatalf("%s: %d runs, %v", path, len(s.Runs), err)
		}
		return s
	}
	uploaded := read(outputs["sarif"])
	if n := len(uploaded.Runs[0].Results); n != 25000 {
		t.Errorf("the uploaded SARIF has %d results, want GitHub's limit 25000", n)
	}
	note := fmt.Sprintf("%d of %d results left out: code scanning takes 25000 per run. The full report is the artifact `crdguard-validate-report` of this run.", objects*perObject-25000, objects*perObject)
	if inv := uploaded.Runs[0].Invocations; len(inv) != 1 || len(inv[0].Notifications) != 1 || inv[0].Notifications[0].Message.Text != note {
		t.Errorf("the uploaded SARIF's invocations %+v, want one notification %q", inv, note)
	}
	if !strings.Contains(out, "::warning title=crdguard::15000 of 40000 results left out of the SARIF upload") {
		t.Errorf("the log does not say what the upload left out:\n%.2000s", out[max(0, len(out)-2000):])
	}

	// The whole reports are where the artifact comes from.
	if full := read(filepath.Join(outputs["full-report"], "crdguard.sarif")); len(full.Runs[0].Results) != objects*perObject {
		t.Errorf("the full SARIF report has %d results, want %d", len(full.Runs[0].Results), objects*perObject)
	}
	md, err := os.ReadFile(filepath.Join(outputs["full-report"], "crdguard.markdown"))
	if err != nil || strings.Count(string(md), "\n#### ") != objects {
		t.Errorf("the full markdown report has %d objects, want %d (%v)", strings.Count(string(md), "\n#### "), objects, err)
	}
}
