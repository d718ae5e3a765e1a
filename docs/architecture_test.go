// Package docs holds no code: its test keeps docs/architecture.md's layout
// table and the Go packages of the repository in step.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository, whose docs/ this test runs in.
const root = ".."

// TestArchitectureLayoutNamesEveryPackage fails for a Go package without a
// row in docs/architecture.md's layout, and for a row whose path is not
// there: the table is the one full description of the layout, so it may
// neither miss a package nor keep one that was removed.
func TestArchitectureLayoutNamesEveryPackage(t *testing.T) {
	rows := layoutPaths(t, "architecture.md")
	if len(rows) < 40 {
		t.Fatalf("docs/architecture.md's layout lists %d paths: the table was not found whole", len(rows))
	}
	for _, p := range rows {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("docs/architecture.md has a row for %s, which is not in the repository", p)
		}
	}
	for _, dir := range goPackageDirs(t) {
		if !slices.Contains(rows, dir+"/") {
			t.Errorf("package %s/ has no row in docs/architecture.md's layout", dir)
		}
	}
}

// TestReadmeLayoutIsTopLevel keeps the README's layout to one line per
// top-level area, each of which exists; the full table is
// docs/architecture.md's.
func TestReadmeLayoutIsTopLevel(t *testing.T) {
	rows := layoutPaths(t, filepath.Join(root, "README.md"))
	if len(rows) == 0 {
		t.Fatal("README.md has no layout table")
	}
	for _, p := range rows {
		if strings.Contains(strings.TrimSuffix(p, "/"), "/") {
			t.Errorf("README.md's layout has a row for %s: it lists top-level areas only, packages go in docs/architecture.md", p)
		}
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("README.md's layout has a row for %s, which is not in the repository", p)
		}
	}
}

// pathCell is a path in a table row's first cell, between backquotes.
var pathCell = regexp.MustCompile("`([^`]+)`")

// layoutPaths are the paths in the first cells of the table under the
// "## Layout" heading of the markdown file.
func layoutPaths(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Layout\n")
	if !ok {
		t.Fatalf("%s has no ## Layout section", file)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var paths []string
	for line := range strings.SplitSeq(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "| `") {
			continue
		}
		for _, m := range pathCell.FindAllStringSubmatch(cells[1], -1) {
			paths = append(paths, m[1])
		}
	}
	return paths
}

// goPackageDirs are the directories that hold Go files, relative to the
// root, in every module of the repository: not testdata (cases, not
// packages), nor hidden or ignored build output.
func goPackageDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin" || name == "dist") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !slices.Contains(dirs, rel) {
			dirs = append(dirs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}
