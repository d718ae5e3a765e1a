package testsuite

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds Decode arbitrary files: it must return a suite that
// passes its own checks, or an error, and never panic.
func FuzzDecode(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "mysql", FileName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte(header + "cases:\n" + goodCase))
	f.Add([]byte(header + "cases:\n" + goodCase + "---\n" + header))
	f.Add([]byte("cases: [{expect: {rules: [{fields: [a, a]}]}}]"))
	f.Add([]byte("{}"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, FileName)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		suite, err := Decode(path)
		if err != nil {
			return
		}
		if errs := suite.validate(); len(errs) > 0 {
			t.Fatalf("Decode returned a suite that fails its checks: %v", errs)
		}
		if suite.APIVersion != APIVersion || len(suite.Cases) == 0 {
			t.Fatalf("Decode returned apiVersion %q with %d cases", suite.APIVersion, len(suite.Cases))
		}
		for _, c := range suite.Cases {
			if c.Expect == nil {
				t.Fatalf("case %q without an expectation", c.Name)
			}
		}
	})
}
