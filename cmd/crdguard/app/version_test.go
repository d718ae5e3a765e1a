package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Both spellings print the same two lines.
func TestVersion(t *testing.T) {
	want := versionText()
	if !strings.HasPrefix(want, "crdguard (devel)\nkubernetes validation: k8s.io/apiextensions-apiserver ") {
		t.Errorf("version text = %q", want)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := crdguard(t, "", args...)
		if r.code != ExitOK || r.stdout != want || r.stder != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0, %q and nothing", args, r.code, r.stdout, r.stder, want)
		}
	}
}

// A built binary names the apiextensions-apiserver go.mod requires, read
// from its build information.
func TestVersionOfBinary(t *testing.T) {
	out, err := exec.Command(crdguardBinary(t), "--version").Output()
	if err != nil {
		t.Fatalf("crdguard --version: %v", err)
	}
	// The first line's version depends on how go build stamps the checkout.
	first, second, _ := strings.Cut(string(out), "\n")
	want := "kubernetes validation: k8s.io/apiextensions-apiserver " + goModVersion(t, "k8s.io/apiextensions-apiserver") + "\n"
	if !strings.HasPrefix(first, "crdguard ") || second != want {
		t.Errorf("crdguard --version = %q, want \"crdguard VERSION\\n%s\"", out, want)
	}
}

// -v is not --version: kubectl users type -v=N for verbosity, and kubectl
// hands it to the plugin as typed, where it was a ParseBool error.
func TestVersionHasNoShorthand(t *testing.T) {
	checkUsageErrors(t, []usageErrorCase{
		{"kubectl's verbosity", []string{"-v=6"}, "crdguard: unknown shorthand flag: 'v' in -v=6\nRun 'crdguard --help' for usage.\n"},
		{"-v alone", []string{"-v"}, "crdguard: unknown shorthand flag: 'v' in -v\nRun 'crdguard --help' for usage.\n"},
	})
	help := crdguard(t, "", "--help").stdout
	if !strings.Contains(help, "\n      --version   print the crdguard version, as crdguard version does\n") {
		t.Errorf("help does not list --version alone:\n%s", help)
	}
}

// A binary built in a git clone names the commit it was built from, as go
// build stamps it (vcs.revision, vcs.time, vcs.modified), and says when the
// clone had uncommitted changes. The clone is of this checkout's HEAD,
// without tags, so that the commit is all there is to name.
func TestVersionOfClone(t *testing.T) {
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse --show-toplevel: %v", err)
	}
	clone := filepath.Join(t.TempDir(), "crdguard")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	git("clone", "--quiet", "--no-tags", strings.TrimSpace(string(root)), clone)
	commit := git("-C", clone, "show", "--no-patch", "--format=%H %cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ")
	revision, when, _ := strings.Cut(commit, " ")
	want := "crdguard (devel) commit " + revision[:12] + ", " + when

	version := func() string {
		t.Helper()
		bin := filepath.Join(t.TempDir(), "crdguard")
		build := exec.Command("go", "build", "-o", bin, "./cmd/crdguard")
		build.Dir = clone
		// A go env file may turn stamping off (GOFLAGS=-buildvcs=false);
		// the environment's GOFLAGS overrides it, as on a fresh machine.
		build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=auto")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/crdguard in a clone: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatalf("crdguard version: %v", err)
		}
		first, _, _ := strings.Cut(string(out), "\n")
		return first
	}
	if got := version(); got != want {
		t.Errorf("built in a clean clone: %q, want %q", got, want)
	}
	readme := filepath.Join(clone, "README.md")
	if err := os.WriteFile(readme, []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := version(), want+", uncommitted changes"; got != want {
		t.Errorf("built in a changed clone: %q, want %q", got, want)
	}
}
