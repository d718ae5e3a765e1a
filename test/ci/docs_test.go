package ci

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// operator is a repository laid out as kubebuilder lays one out, which
// the examples of docs/ci.md are written for.
var operator = filepath.Join("testdata", "operator")

// docExamples are the code blocks of docs/ci.md, by the name of the
// `<!-- ci-example: NAME -->` line before each.
func docExamples(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)<!-- ci-example: ([a-z-]+) -->\n```[a-z]+\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		examples[m[1]] = m[2]
	}
	for _, name := range []string{"github", "github-diff", "pre-commit", "gitlab", "shell"} {
		if examples[name] == "" {
			t.Fatalf("docs/ci.md has no %s example", name)
		}
	}
	return examples
}

// inOperator runs bash with script in the operator repository, crdguard on
// the PATH, and returns the output and the exit code.
func inOperator(t *testing.T, script string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = filepath.Join(root, "test", "ci", operator)
	cmd.Env = append([]string{"PATH=" + binDir + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	return combinedOutput(t, cmd)
}

// TestGitHubExample runs the workflow's crdguard steps as the action runs
// them, with inputs the action declares.
func TestGitHubExample(t *testing.T) {
	var workflow struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `json:"uses"`
				With map[string]string `json:"with"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(docExamples(t)["github"]), &workflow); err != nil {
		t.Fatal(err)
	}
	inputs := readAction(t).Inputs
	ran := 0
	for _, job := range workflow.Jobs {
		for _, step := range job.Steps {
			if !strings.HasPrefix(step.Uses, "crdguard/crdguard@") {
				continue
			}
			if !regexp.MustCompile(`@v\d+\.\d+\.\d+$`).MatchString(step.Uses) {
				t.Errorf("%s is not pinned to a release", step.Uses)
			}
			for name := range step.With {
				if _, ok := inputs[name]; !ok {
					t.Errorf("the example gives input %s, which action.yml does not declare", name)
				}
			}
			for name, in := range inputs {
				if _, ok := step.With[name]; in.Required && !ok {
					t.Errorf("the example leaves out the required input %s", name)
				}
			}
			out, code := inOperator(t, filepath.Join(root, "action", "run.sh"),
				"INPUT_COMMAND="+step.With["command"], "INPUT_ARGS="+step.With["args"], "RUNNER_TEMP="+t.TempDir())
			if code != 0 {
				t.Errorf("crdguard %s %s: exit %d, want 0:\n%s", step.With["command"], step.With["args"], code, out)
			}
			ran++
		}
	}
	if ran != 2 {
		t.Errorf("ran %d crdguard steps, want the example's 2 (validate and lint)", ran)
	}
}

// TestPreCommitExample runs the configuration's hooks on every file of the
// repository, as `pre-commit run --all-files` does.
func TestPreCommitExample(t *testing.T) {
	var config struct {
		Repos []struct {
			Repo  string `json:"repo"`
			Rev   string `json:"rev"`
			Hooks []struct {
				ID    string   `json:"id"`
				Args  []string `json:"args"`
				Files string   `json:"files"`
			} `json:"hooks"`
		} `json:"repos"`
	}
	if err := yaml.UnmarshalStrict([]byte(docExamples(t)["pre-commit"]), &config); err != nil {
		t.Fatal(err)
	}
	var files []string
	dir := filepath.Join(root, "test", "ci", operator)
	if err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	hooks := readHooks(t)
	ran := 0
	for _, r := range config.Repos {
		for _, c := range r.Hooks {
			h, ok := hooks[c.ID]
			if !ok {
				t.Errorf("the example uses hook %s, which .pre-commit-hooks.yaml does not declare", c.ID)
				continue
			}
			if c.Files != "" {
				h.Files = c.Files
			}
			out, code := precommitIn(t, dir, h, c.Args, files...)
			if code != 0 {
				t.Errorf("hook %s: exit %d, want 0:\n%s", c.ID, code, out)
			}
			ran++
		}
	}
	if ran != 2 {
		t.Errorf("ran %d hooks, want the example's 2", ran)
	}
}

// TestGitLabExample runs the job's script and reads the JUnit report it
// hands GitLab. before_script installs from GitHub, which this machine
// does not reach: TestInstall runs that script.
func TestGitLabExample(t *testing.T) {
	var jobs map[string]struct {
		Image        string            `json:"image"`
		Variables    map[string]string `json:"variables"`
		BeforeScript []string          `json:"before_script"`
		Script       []string          `json:"script"`
		Artifacts    struct {
			When    string `json:"when"`
			Reports struct {
				JUnit string `json:"junit"`
			} `json:"reports"`
		} `json:"artifacts"`
	}
	if err := yaml.UnmarshalStrict([]byte(docExamples(t)["gitlab"]), &jobs); err != nil {
		t.Fatal(err)
	}
	job, ok := jobs["crdguard"]
	if !ok {
		t.Fatal("no crdguard job")
	}
	if !strings.Contains(strings.Join(job.BeforeScript, "\n"), "/action/install.sh") {
		t.Errorf("before_script does not install with the action's install.sh:\n%s", strings.Join(job.BeforeScript, "\n"))
	}
	if job.Artifacts.When != "always" {
		t.Errorf("artifacts.when = %q: a failing job would hand GitLab no report", job.Artifacts.When)
	}
	report := filepath.Join(t.TempDir(), "junit.xml")
	script := strings.ReplaceAll(strings.Join(job.Script, "\n"), "="+job.Artifacts.Reports.JUnit, "="+report)
	if out, code := inOperator(t, "set -e\n"+script); code != 0 {
		t.Fatalf("script: exit %d:\n%s", code, out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("the job writes no %s: %v", job.Artifacts.Reports.JUnit, err)
	}
	var suites struct {
		XMLName xml.Name
		Tests   int `xml:"tests,attr"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil || suites.XMLName.Local != "testsuites" || suites.Tests != 2 {
		t.Errorf("%s is not JUnit with a test per sample (2) (%v):\n%s", job.Artifacts.Reports.JUnit, err, data)
	}
}

// TestShellExample runs the shell example and checks the reports it
// writes beside the text report.
func TestShellExample(t *testing.T) {
	reports := t.TempDir()
	out, code := inOperator(t, strings.ReplaceAll(docExamples(t)["shell"], "=crdguard.", "="+reports+"/crdguard."))
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, name := range []string{"crdguard.sarif", "crdguard.md"} {
		if info, err := os.Stat(filepath.Join(reports, name)); err != nil || info.Size() == 0 {
			t.Errorf("the example writes no %s: %v", name, err)
		}
	}
	if !strings.Contains(out, "config/samples/mysqlcluster.yaml:1 (document 1): MySQLCluster shop/prod is valid (CREATE)") {
		t.Errorf("the log has no text report:\n%s", out)
	}
}

// TestGitHubDiffExample runs the diff workflow's crdguard step as the
// action runs it, in a clone of a pull request's repository: the base
// branch is there because checkout fetched every commit.
func TestGitHubDiffExample(t *testing.T) {
	var workflow struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `json:"uses"`
				With map[string]string `json:"with"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(docExamples(t)["github-diff"]), &workflow); err != nil {
		t.Fatal(err)
	}
	job := workflow.Jobs["crd-changes"]
	if len(job.Steps) != 2 || !strings.HasPrefix(job.Steps[0].Uses, "actions/checkout@") || job.Steps[0].With["fetch-depth"] != "0" {
		t.Fatalf("steps %+v, want actions/checkout with fetch-depth 0, then crdguard", job.Steps)
	}
	step := job.Steps[1]
	if !strings.HasPrefix(step.Uses, "crdguard/crdguard@") || step.With["command"] != "diff" {
		t.Fatalf("step %+v does not run crdguard diff", step)
	}

	// The base branch main, and a pull request that drops the Cache CRD's
	// spec.memory: a breaking change.
	base := kubebuilderRepository(t)
	git := func(dir string, args ...string) {
		t.Helper()
		run(t, dir, []string{"GIT_AUTHOR_NAME=ci", "GIT_AUTHOR_EMAIL=ci@example.io", "GIT_COMMITTER_NAME=ci", "GIT_COMMITTER_EMAIL=ci@example.io"}, "git", args...)
	}
	git(base, "checkout", "--quiet", "-b", "main")
	git(base, "add", "-A")
	git(base, "commit", "--quiet", "-m", "base")
	pr := filepath.Join(t.TempDir(), "pr")
	git(base, "clone", "--quiet", base, pr)
	args := strings.ReplaceAll(step.With["args"], "${{ github.base_ref }}", "main")
	runDiff := func() (string, int) {
		t.Helper()
		cmd := exec.Command(filepath.Join(root, "action", "run.sh"))
		cmd.Dir = pr
		cmd.Env = []string{"PATH=" + binDir + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "RUNNER_TEMP=" + t.TempDir(), "INPUT_COMMAND=diff", "INPUT_ARGS=" + args}
		return combinedOutput(t, cmd)
	}
	if out, code := runDiff(); code != 0 {
		t.Errorf("crdguard diff %s without changes: exit %d, want 0:\n%s", args, code, out)
	}
	crd := filepath.Join(pr, "config", "crd", "bases", "caches.yaml")
	data, err := os.ReadFile(crd)
	if err != nil {
		t.Fatal(err)
	}
	dropped := regexp.MustCompile(`(?m)^\s+memory: .*\n`).ReplaceAllString(string(data), "")
	if dropped == string(data) {
		t.Fatal("the Cache CRD has no spec.memory to drop")
	}
	writeTree(t, pr, map[string]string{"config/crd/bases/caches.yaml": dropped})
	if out, code := runDiff(); code != 1 || !strings.Contains(out, "memory") {
		t.Errorf("crdguard diff %s with spec.memory dropped: exit %d, want 1 naming it:\n%s", args, code, out)
	}
}

// The README's install section starts with what works before any release:
// a clone and a build whose binaries the section names; what needs a
// release (go install @latest, the release archives, the Action) is said
// to wait for one.
func TestReadmeInstall(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "\n## Install\n")
	if start < 0 {
		t.Fatal("README.md has no Install section")
	}
	section, _, _ := strings.Cut(readme[start+1:], "\n## ")
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	if block == nil || !strings.HasPrefix(block[1], "git clone https://github.com/crdguard/crdguard && cd crdguard\nmake build") {
		t.Errorf("the Install section's first command is not a clone and make build:\n%s", section)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{"crdguard", "kubectl-crdguard", "crdguard-webhook"} {
		if !strings.Contains(string(makefile), "-o bin/"+bin+" ./cmd/"+bin+"\n") {
			t.Errorf("make build does not write bin/%s from ./cmd/%s, as go build -o bin/ ./cmd/... names it", bin, bin)
		}
		if !strings.Contains(section, "`bin/"+bin+"`") {
			t.Errorf("the Install section does not name bin/%s", bin)
		}
	}
	// Every paragraph that installs a release says it waits for one.
	for paragraph := range strings.SplitSeq(readme, "\n\n") {
		if strings.Contains(paragraph, "@latest") || strings.Contains(paragraph, "crdguard/crdguard@v") || strings.Contains(paragraph, "krew install") {
			if !strings.Contains(paragraph, "Once released") && !strings.Contains(paragraph, "until the first one") && !strings.Contains(paragraph, "```") {
				t.Errorf("this paragraph installs a release without saying there is none yet:\n%s", paragraph)
			}
		}
	}
}
