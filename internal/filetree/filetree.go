// Package filetree writes the small directory trees tests walk and load.
package filetree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files (slash-separated name relative to the tree → content)
// under a new temporary directory, making the directories they need, and
// returns that directory.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
