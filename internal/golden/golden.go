package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output")

// Updating tells whether the test binary runs with -update, for golden
// files that are merged with the output rather than overwritten (labels a
// human wrote are kept).
func Updating() bool { return *update }

// shownLines bounds how much of each side a mismatch prints: some goldens
// run to thousands of lines.
const shownLines = 5

// Assert compares got with the golden file at path, and fails t showing
// both from the first line where they part. With -update it writes got to
// path instead, creating its directory.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (rerun with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	i := 0
	for i < len(gotLines) && i < len(wantLines) && gotLines[i] == wantLines[i] {
		i++
	}
	t.Errorf("the output differs from %s from line %d on (rerun with -update if the change is intended)\n--- got\n%s\n--- want\n%s",
		path, i+1, linesFrom(gotLines, i), linesFrom(wantLines, i))
}

// linesFrom is up to shownLines lines from the i-th on.
func linesFrom(lines []string, i int) string {
	if i >= len(lines) {
		return "<end>"
	}
	end := min(i+shownLines, len(lines))
	shown := strings.Join(lines[i:end], "\n")
	if end < len(lines) {
		shown += fmt.Sprintf("\n<%d more lines>", len(lines)-end)
	}
	return shown
}
