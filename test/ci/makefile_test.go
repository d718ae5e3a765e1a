package ci

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMakeFuzzRunsEveryTarget: `make fuzz` fuzzes every fuzz target of
// the repository, in its own package: a target left out is never fuzzed
// and only replays its seeds.
func TestMakeFuzzRunsEveryTarget(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	target := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range target.FindAllStringSubmatch(string(src), -1) {
			found++
			line := "./" + filepath.ToSlash(rel) + "/ -run '^$$' -fuzz " + m[1] + " "
			if !strings.Contains(string(makefile), line) {
				t.Errorf("make fuzz does not run %s of %s: no line with %q", m[1], rel, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("found no fuzz targets")
	}
}
