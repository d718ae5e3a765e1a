package app

import (
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
	t.Run("a file that cannot be written", func(t *testing.T) {
		path := filepath.Join(dir, "missing", "out.json")
		got := crdguard(t, "", "validate", "--crds", exampleCRD, "--report", "json="+path, goodYAML)
		if want := "crdguard: --report json=" + path + ": open " + path + ": no such file or directory\n"; got.code != ExitInternal || got.stder != want {
			t.Errorf("exit %d, stderr %q, want %d with %q", got.code, got.stder, ExitInternal, want)
		}
	})
}
