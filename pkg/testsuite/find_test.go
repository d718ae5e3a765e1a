package testsuite

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"crdguard-test.yaml",
		"a/mysql.crdguard-test.yaml",
		"a/b/crdguard-test.yaml",
		"a/crdguard-test.yml",     // not .yaml
		"a/notcrdguard-test.yaml", // no dot before the name
		".git/crdguard-test.yaml", // hidden directory
		"c/policy.yaml",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Find(dir, filepath.Join(dir, "c", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(dir, "a", "b", "crdguard-test.yaml"),
		filepath.Join(dir, "a", "mysql.crdguard-test.yaml"),
		filepath.Join(dir, "crdguard-test.yaml"),
		filepath.Join(dir, "c", "policy.yaml"), // named, so taken as a suite
	}
	if !slices.Equal(got, want) {
		t.Errorf("Find:\n got %q\nwant %q", got, want)
	}

	empty := filepath.Join(dir, "c")
	if _, err := Find(empty); err == nil || err.Error() != empty+": no test suite (crdguard-test.yaml or NAME.crdguard-test.yaml) in it" {
		t.Errorf("Find(%s) error = %v", empty, err)
	}
	missing := filepath.Join(dir, "nope")
	if _, err := Find(missing); err == nil || err.Error() != "stat "+missing+": no such file or directory" {
		t.Errorf("Find(%s) error = %v", missing, err)
	}
}
