package hacktools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	// sarif-schema is a file: the quickest tool to get once cached.
	path, err := Path(t.Context(), "sarif-schema", nil)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "sarif-2.1.0.json" {
		t.Errorf("path %q, want bin/'s sarif-2.1.0.json", path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}

	_, err = Path(t.Context(), "no-such-tool", nil)
	if err == nil || err.Error() != "hack/tools/install.sh no-such-tool: exit status 1\ninstall.sh: unknown tool: no-such-tool" {
		t.Errorf("unknown tool: %v; want install.sh's own message", err)
	}
	var progress bytes.Buffer
	_, err = Path(t.Context(), "no-such-tool", &progress)
	if err == nil || err.Error() != "hack/tools/install.sh no-such-tool: exit status 1" || progress.String() != "install.sh: unknown tool: no-such-tool\n" {
		t.Errorf("unknown tool with progress: %v; progress %q", err, progress.String())
	}
}

func TestValidateJSON(t *testing.T) {
	dir := t.TempDir()
	schema, good, bad := filepath.Join(dir, "schema.json"), filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	for path, content := range map[string]string{
		schema: `{"type": "object", "required": ["name"]}`,
		good:   `{"name": "a"}`,
		bad:    `{}`,
	} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := ValidateJSON(schema, good); err != nil {
		t.Errorf("good.json: %v\n%s", err, out)
	}
	if out, err := ValidateJSON(schema, good, bad); err == nil || !strings.Contains(out, "missing property 'name'") {
		t.Errorf("bad.json: %v, want the missing name\n%s", err, out)
	}
}

func TestOperator(t *testing.T) {
	dir, err := Operator(t.Context(), "sigs.k8s.io/gateway-api", "v1.3.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "config", "crd", "experimental")); err != nil {
		t.Errorf("the release's CRDs: %v", err)
	}
	// Fail closed: a release nobody pinned is refused, not fetched.
	_, err = Operator(t.Context(), "sigs.k8s.io/gateway-api", "v1.0.0")
	if want := "sigs.k8s.io/gateway-api@v1.0.0 is not pinned in hack/tools/operators.txt"; err == nil || err.Error() != want {
		t.Errorf("an unpinned release: got error %v, want %q", err, want)
	}
}
