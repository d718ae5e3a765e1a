// Package ci tests crdguard's integrations with CI tools as far as they run
// here: the GitHub Action's metadata and its scripts run with the inputs a
// workflow gives them, and the pre-commit hooks run as pre-commit runs them.
package ci

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/crdguard/crdguard/internal/corpus"
)

// releaseVersion is the version the test binary is stamped with, as a
// release's is.
const releaseVersion = "v0.1.0-ci"

var (
	root string // the repository root
	// binDir holds crdguard, built for these tests.
	binDir string
)

func TestMain(m *testing.M) {
	root = corpus.RepositoryRoot()
	dir, err := os.MkdirTemp("", "crdguard-ci-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	build := exec.Command("go", "build", "-o", filepath.Join(binDir, "crdguard"),
		"-ldflags", "-X github.com/crdguard/crdguard/internal/version.version="+releaseVersion, "./cmd/crdguard")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building crdguard: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// combinedOutput runs cmd and returns its combined output and exit code;
// a command that cannot start fails the test, as no exit code could say it.
func combinedOutput(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return string(out), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}
