package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApprovalKeyFile: a key file that cannot sign stops the start, named;
// one that can is read, its final newline ignored.
func TestApprovalKeyFile(t *testing.T) {
	dir := t.TempDir()
	short, good := filepath.Join(dir, "short"), filepath.Join(dir, "good")
	if err := os.WriteFile(short, []byte("too short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte(strings.Repeat("k", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, file, err string
	}{
		{"no key file", "", ""},
		{"a missing key file", filepath.Join(dir, "missing"), "--approval-key-file: open " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{"a key file too short to sign", short, "--approval-key-file " + short + ": an approval key needs at least 32 bytes, found 9"},
		{"a 32-byte key", good, ""},
	} {
		key, err := (&Options{ApprovalKeyFile: tt.file}).approvalKey()
		if got := errString(err); got != tt.err || (key != nil) != (tt.file != "" && tt.err == "") {
			t.Errorf("%s: approvalKey() = %v, %q; want a key %v, error %q", tt.name, key, got, tt.file != "" && tt.err == "", tt.err)
		}
	}
}
