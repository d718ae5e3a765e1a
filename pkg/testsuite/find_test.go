package testsuite

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/crdguard/crdguard/internal/filetree"
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

// A symlinked directory is walked, and its suites are named under the link
// as given.
func TestFindInSymlinkedDirectory(t *testing.T) {
	dir := filetree.Write(t, map[string]string{"suites/crdguard-test.yaml": ""})
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "suites"), link); err != nil {
		t.Fatal(err)
	}
	got, err := Find(link)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(link, "crdguard-test.yaml")}; !slices.Equal(got, want) {
		t.Errorf("Find:\n got %q\nwant %q", got, want)
	}
}

// A suite file in a directory that cannot be read as one is an error: a run
// that left it out would pass, and a named pipe's read would block.
func TestFindRefusesSuitesItCannotRead(t *testing.T) {
	dir := filetree.Write(t, map[string]string{"sub/crdguard-test.yaml": ""})
	pipeDir := filepath.Join(dir, "pipe")
	if err := os.Mkdir(pipeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(pipeDir, "crdguard-test.yaml")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(pipeDir); err == nil || err.Error() != pipe+": not a regular file (named pipe)" {
		t.Errorf("Find(%s) error = %v", pipeDir, err)
	}

	linkDir := filepath.Join(dir, "link")
	if err := os.Mkdir(linkDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A directory link is followed, unless it loops back.
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(linkDir, "sub")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(linkDir, "sub", "loop")
	if err := os.Symlink(dir, filepath.Join(dir, "sub", "loop")); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(linkDir); err == nil || err.Error() != link+": symbolic link to a directory it is in (a loop), not followed" {
		t.Errorf("Find(%s) error = %v", linkDir, err)
	}
}
