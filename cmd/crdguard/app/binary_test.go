package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// builtBinary is the crdguard binary, built once for the tests that need a
// real process: signals, other users, build information (a test binary
// carries no dependency versions).
var builtBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "crdguard-bin-")
	if err != nil {
		return "", err
	}
	binaryDir = dir
	// Readable by everyone: a test runs it as another user.
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "crdguard")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/crdguard/crdguard/cmd/crdguard").CombinedOutput()
	if err != nil {
		return "", &buildError{err, string(out)}
	}
	return bin, nil
})

// binaryDir holds the built binary, removed after the tests; empty when
// no test needed it.
var binaryDir string

type buildError struct {
	err    error
	output string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.output }

func crdguardBinary(t *testing.T) string {
	t.Helper()
	bin, err := builtBinary()
	if err != nil {
		t.Fatalf("go build ./cmd/crdguard: %v", err)
	}
	return bin
}

// goModVersion is the version go.mod requires of module.
func goModVersion(t *testing.T, module string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", module, err)
	}
	return strings.TrimSpace(string(out))
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
	os.Exit(code)
}
