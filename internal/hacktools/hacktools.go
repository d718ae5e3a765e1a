// Package hacktools runs, for the tests, the benchmarks and the demo, what
// hack/tools pins: the tools install.sh builds or downloads into bin/, and
// the JSON Schema validator, which crdguard itself does not depend on.
package hacktools

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/crdguard/crdguard/internal/corpus"
)

// Path returns the path install.sh prints for tool (envtest, helm,
// kubeconform, sarif-schema, ...), building or downloading it into bin/
// once per version. install.sh's progress goes to progress; with nil it is
// kept for the error.
func Path(ctx context.Context, tool string, progress io.Writer) (string, error) {
	root := corpus.RepositoryRoot()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "sh", filepath.Join(root, "hack", "tools", "install.sh"), tool)
	cmd.Dir, cmd.Stderr = root, &stderr
	if progress != nil {
		cmd.Stderr = progress
	}
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("hack/tools/install.sh %s: %w", tool, err)
		if stderr.Len() > 0 {
			err = fmt.Errorf("%w\n%s", err, bytes.TrimSpace(stderr.Bytes()))
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ValidateJSON validates JSON files against the JSON Schema file schema
// with hack/tools/jsonschema-validate, and returns what it printed.
func ValidateJSON(schema string, files ...string) (string, error) {
	cmd := exec.Command("go", append([]string{"run", "./jsonschema-validate", schema}, files...)...)
	cmd.Dir = filepath.Join(corpus.RepositoryRoot(), "hack", "tools")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
