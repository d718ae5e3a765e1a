package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportFiles checks that --report writes each file as that format's
// -o would print it in the same run, for the streamed (validate) and the
// written-once (diff, lint) reports, and that the text still goes to
// standard output.
func TestReportFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"validate", []string{"validate", "--crds", exampleCRD, badYAML}, ExitViolations},
		{"diff", []string{"diff", diffFile("old.yaml"), diffFile("new-breaking.yaml")}, ExitViolations},
		{"lint", []string{"lint", "--crds", "../../../pkg/schema/gotypes/testdata/clean/crd.yaml", "../../../pkg/schema/gotypes/testdata/clean"}, ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := tc.args
			for _, format := range []string{"json", "sarif", "junit", "markdown"} {
				args = append(args, "--report", format+"="+filepath.Join(dir, format))
			}
			got := crdguard(t, "", args...)
			if got.code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s%s", got.code, tc.code, got.stdout, got.stder)
			}
			if want := crdguard(t, "", tc.args...); got.stdout != want.stdout {
				t.Errorf("standard output differs from a run without --report:\n%s\nwant:\n%s", got.stdout, want.stdout)
			}
			for _, format := range []string{"json", "sarif", "junit", "markdown"} {
				written := readFile(t, filepath.Join(dir, format))
				if want := crdguard(t, "", append(tc.args, "-o", format)...); written != want.stdout {
					t.Errorf("--report %s differs from -o %s:\n%s\nwant:\n%s", format, format, written, want.stdout)
				}
			}
		})
	}
}

func TestReportFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, value, stderr string
	}{
		{"no format", "out.sarif", `crdguard: invalid argument "out.sarif" for "--report" flag: "out.sarif": want FORMAT=FILE, such as sarif=crdguard.sarif`},
		{"no file", "sarif=", `crdguard: invalid argument "sarif=" for "--report" flag: "sarif=": want FORMAT=FILE, such as sarif=crdguard.sarif`},
		{"unknown format", "xml=out.xml", `crdguard: invalid argument "xml=out.xml" for "--report" flag: unknown output format "xml": valid formats are text, json, sarif, junit, markdown`},
		{"standard output", "json=-", `crdguard: invalid argument "json=-" for "--report" flag: "json=-": standard output gets the -o format; give a file`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := crdguard(t, "", "validate", "--crds", exampleCRD, "--report", tc.value, goodYAML)
			if got.code != ExitUsage || !strings.HasPrefix(got.stder, tc.stderr+"\nRun 'crdguard validate --help' for usage.") {
				t.Errorf("exit %d, stderr:\n%s\nwant %d with:\n%s", got.code, got.stder, ExitUsage, tc.stderr)
			}
		})
	}
	t.Run("a file given twice", func(t *testing.T) {
		path := filepath.Join(dir, "out")
		got := crdguard(t, "", "validate", "--crds", exampleCRD, "--report", "json="+path, "--report", "sarif="+path, goodYAML)
		if want := `"sarif=` + path + `": ` + path + " is given twice"; got.code != ExitUsage || !strings.Contains(got.stder, want) {
			t.Errorf("exit %d, stderr %q, want %d with %q", got.code, got.stder, ExitUsage, want)
		}
	})
	// Checked before the run: a mistyped path is a usage error, not an
	// internal error that loses the verdict after the whole run.
	t.Run("a file that cannot be written", func(t *testing.T) {
		path := filepath.Join(dir, "missing", "out.json")
		readOnly := filepath.Join(dir, "read-only.json")
		if err := os.WriteFile(readOnly, []byte("kept"), 0o444); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"validate", "--crds", exampleCRD, goodYAML},
			{"diff", exampleCRD, exampleCRD},
			{"lint", "--crds", exampleCRD, "./nothing/..."},
			{"audit", "--kubeconfig", filepath.Join(dir, "no-kubeconfig")},
		} {
			got := crdguard(t, "", append(args, "--report", "json="+path)...)
			if want := "crdguard: --report json=" + path + ": open " + path + ": no such file or directory\n"; got.code != ExitUsage || got.stdout != "" || got.stder != want {
				t.Errorf("%s: exit %d, stdout %q, stderr %q, want %d, nothing and %q", args[0], got.code, got.stdout, got.stder, ExitUsage, want)
			}
		}
		if os.Geteuid() != 0 { // root writes a read-only file
			got := crdguard(t, "", "validate", "--crds", exampleCRD, goodYAML, "--report", "json="+readOnly)
			if want := "crdguard: --report json=" + readOnly + ": open " + readOnly + ": permission denied\n"; got.code != ExitUsage || got.stder != want {
				t.Errorf("read-only: exit %d, stderr %q, want %d with %q", got.code, got.stder, ExitUsage, want)
			}
		}
		if data, err := os.ReadFile(readOnly); err != nil || string(data) != "kept" {
			t.Errorf("the checked file holds %q (%v), want it unchanged", data, err)
		}
	})
	t.Run("a file that is not there is not left behind", func(t *testing.T) {
		path := filepath.Join(dir, "new.json")
		got := crdguard(t, "", "validate", "--crds", exampleCRD, "--report", "json="+path, filepath.Join(dir, "no-such-input.yaml"))
		if _, err := os.Stat(path); got.code != ExitUsage || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("exit %d, stat %v; want 2 and no file", got.code, err)
		}
	})
}
