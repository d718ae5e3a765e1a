package hacktools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/crdguard/crdguard/internal/corpus"
)

// operatorPins lists the operator releases Operator may download.
const operatorPins = "hack/tools/operators.txt"

// Operator returns the source directory of an operator release pinned in
// hack/tools/operators.txt, downloading it from the module proxy once. The
// release's content must hash to its pin: a republished or unpinned release
// is an error, never a different corpus.
func Operator(ctx context.Context, module, version string) (string, error) {
	want, err := operatorSum(module, version)
	if err != nil {
		return "", err
	}
	// Outside any module, go mod download fetches exactly the release asked
	// for and leaves every go.mod and go.sum alone.
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var got struct{ Dir, Sum, Error string }
	if jsonErr := json.Unmarshal(out, &got); jsonErr != nil || got.Error != "" || err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v %s %s", module, version, err, got.Error, bytes.TrimSpace(stderr.Bytes()))
	}
	if got.Sum != want {
		return "", fmt.Errorf("%s@%s: the module proxy serves %s, %s pins %s", module, version, got.Sum, operatorPins, want)
	}
	return got.Dir, nil
}

// operatorSum reads the pinned h1 sum of module@version.
func operatorSum(module, version string) (string, error) {
	path := filepath.Join(corpus.RepositoryRoot(), operatorPins)
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == module && fields[1] == version {
			return fields[2], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return "", fmt.Errorf("%s@%s is not pinned in %s", module, version, operatorPins)
}
