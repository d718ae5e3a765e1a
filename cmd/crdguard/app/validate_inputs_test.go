package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crdguard/crdguard/internal/filetree"

	"github.com/crdguard/crdguard/pkg/report"
)

// outcomes is "source: outcome" of every result, the source relative to dir.
func outcomes(dir string, rep report.Report) []string {
	var out []string
	for _, r := range rep.Results {
		rel := strings.TrimPrefix(r.Source, dir+"/")
		switch {
		case r.Error != "":
			out = append(out, rel+": error: "+r.Error)
		case r.Skipped:
			out = append(out, rel+": skipped: "+r.SkipReason)
		case r.Allowed:
			out = append(out, rel+": allowed")
		default:
			out = append(out, rel+": denied")
		}
	}
	return out
}

// A file that cannot be read is an error result, and every other file is
// still validated and reported; the run exits 2 at the end.
func TestValidateReportsBadFilesAndGoesOn(t *testing.T) {
	good := readFile(t, goodYAML)
	dir := filetree.Write(t, map[string]string{
		"a-good.yaml":                  good,
		"binary.yaml":                  "\x7fELF\x00\x01",
		"broken.yaml":                  "apiVersion: v1\nkind: ConfigMap\n---\n# a comment\n\napiVersion: v1\nkind: [x\n",
		"z-good.yaml":                  good,
		"deploy/kustomization.yaml":    "resources: [../a-good.yaml]\n",
		"chart/Chart.yaml":             "apiVersion: v2\nname: x\nversion: 1.0.0\n",
		"chart/values.yaml":            "replicas: 1\n",
		"chart/templates/cluster.yaml": "replicas: {{ .Values.replicas }}\n",
		".github/workflows/ci.yml":     "on: push\n",
	})
	if err := os.Symlink("gone.yaml", filepath.Join(dir, "dangling.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "json", dir)
	if r.code != ExitUsage {
		t.Errorf("exit code = %d, want %d; stderr %s", r.code, ExitUsage, r.stder)
	}
	rep := decodeReport(t, r)
	want := []string{
		"a-good.yaml: allowed",
		"binary.yaml: error: binary data, not a YAML or JSON manifest",
		"broken.yaml: skipped: no CustomResourceDefinition defines /v1, Kind=ConfigMap",
		// The line in the file, not in the document.
		"broken.yaml: error: yaml: line 7: did not find expected ',' or ']'",
		"dangling.yaml: error: symbolic link to gone.yaml, which does not exist",
		"z-good.yaml: allowed",
	}
	assertLines(t, "results", outcomes(dir, rep), want)
	if rep.Summary != (report.Summary{Objects: 6, Allowed: 2, Skipped: 1, Errors: 3, Unreadable: 3}) {
		t.Errorf("summary = %+v", rep.Summary)
	}
	wantStderr := "crdguard: note: skipped " + dir + "/.github: GitHub configuration (workflows, templates), not manifests\n" +
		"crdguard: note: skipped " + dir + "/chart/Chart.yaml: Helm chart metadata or values, not a manifest\n" +
		"crdguard: note: skipped " + dir + "/chart/templates/cluster.yaml: Helm template: render it with helm template and validate the output\n" +
		"crdguard: note: skipped " + dir + "/chart/values.yaml: Helm chart metadata or values, not a manifest\n" +
		"crdguard: note: skipped " + dir + "/deploy/kustomization.yaml: kustomization file: render it with kustomize build and validate the output\n" +
		"crdguard: note: skipped " + dir + "/pipe.yaml: not a regular file (named pipe)\n" +
		"crdguard: warning: skipped 1 object whose kind no CRD defines: v1 ConfigMap (1)\n"
	if r.stder != wantStderr {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.stder, wantStderr)
	}

	// Text, SARIF and JUnit reports are complete too.
	text := crdguard(t, "", "validate", "--crds", exampleCRD, dir)
	for _, line := range []string{
		dir + "/binary.yaml: error: binary data, not a YAML or JSON manifest",
		dir + "/dangling.yaml: error: symbolic link to gone.yaml, which does not exist",
		dir + "/z-good.yaml:1 (document 1): MySQLCluster shop/prod is valid (CREATE)",
		"3 objects and 3 unreadable inputs: 2 allowed, 0 denied, 1 skipped, 3 errors",
	} {
		if !strings.Contains(text.stdout, line+"\n") {
			t.Errorf("text output lacks %q\n%s", line, text.stdout)
		}
	}
	sarif := crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "sarif", dir)
	if sarif.code != ExitUsage || strings.Count(sarif.stdout, `"ruleId": "crdguard/input-error"`) != 3 {
		t.Errorf("sarif: exit %d, want 3 input errors\n%s", sarif.code, sarif.stdout)
	}
	junit := crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "junit", dir)
	if junit.code != ExitUsage || strings.Count(junit.stdout, `type="InputError"`) != 3 {
		t.Errorf("junit: exit %d, want 3 input errors\n%s", junit.code, junit.stdout)
	}
}

// A broken --crds, --policies or --old file stops the run, naming it:
// what the objects are checked with must be complete.
func TestValidateBadCheckFilesStopTheRun(t *testing.T) {
	dir := filetree.Write(t, map[string]string{"bin.yaml": "\x7fELF\x00\x01"})
	bin := filepath.Join(dir, "bin.yaml")
	for prefix, args := range map[string][]string{
		"reading CRDs: ":          {"--crds", bin},
		"reading GuardPolicies: ": {"--crds", exampleCRD, "--policies", bin},
		"":                        {"--crds", exampleCRD, "--old", bin},
	} {
		r := crdguard(t, "", append(append([]string{"validate"}, args...), goodYAML)...)
		if want := "crdguard: " + prefix + bin + ": binary data, not a YAML or JSON manifest\n"; r.code != ExitUsage || r.stder != want || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing and %q", args, r.code, r.stdout, r.stder, want)
		}
	}
}

func TestValidateExcludeAndSkipKinds(t *testing.T) {
	good := readFile(t, goodYAML)
	dir := filetree.Write(t, map[string]string{
		"objects.yaml":      good + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n",
		"values-prod.yaml":  "replicas: 3\n",
		"vendor/junk.yaml":  "{{ nope\n",
		"kustomize-ish.yml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [objects.yaml]\n",
	})
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "--missing-schemas", "error", "--exclude", "values-*.yaml", "--exclude", "vendor", "--skip-kinds", "Secret,apps/v1/Deployment", "-o", "json", dir)
	if r.code != ExitOK {
		t.Errorf("exit code = %d, want 0; stderr %s", r.code, r.stder)
	}
	want := []string{
		"kustomize-ish.yml: skipped: kustomize configuration, never sent to an API server",
		"objects.yaml: allowed",
		"objects.yaml: skipped: --skip-kinds apps/v1/Deployment",
		"objects.yaml: skipped: --skip-kinds Secret",
	}
	assertLines(t, "results", outcomes(dir, decodeReport(t, r)), want)
	// Objects skipped on purpose are not the missing CRDs warned about.
	if r.stder != "" {
		t.Errorf("stderr = %q, want nothing", r.stder)
	}
	// v1/Deployment is not apps/v1/Deployment.
	r = crdguard(t, "", "validate", "--crds", exampleCRD, "--missing-schemas", "error", "--skip-kinds", "v1/Deployment,Secret", "-o", "json", filepath.Join(dir, "objects.yaml"))
	if r.code != ExitViolations {
		t.Errorf("apiVersion mismatch: exit code = %d, want 1; stderr %s", r.code, r.stder)
	}
}

// Without a PATH, validate reads standard input, as kubeconform does.
func TestValidateReadsStdinWithoutPath(t *testing.T) {
	r := crdguard(t, readFile(t, badYAML), "validate", "--crds", exampleCRD, "-o", "json")
	if r.code != ExitViolations {
		t.Errorf("exit code = %d, want 1; stderr %s", r.code, r.stder)
	}
	if got := outcomes("", decodeReport(t, r)); strings.Join(got, " ") != "-: denied -: denied" {
		t.Errorf("results = %v, want two denied objects from -", got)
	}
}

// Standard input that is a terminal is never waited on without a "-".
func TestInputPathsRefusesATerminal(t *testing.T) {
	_, err := inputPaths(Streams{inTerminal: true}, nil, "crdguard validate")
	if want := "no PATH given and standard input is a terminal: give files, directories or - (see 'crdguard validate --help')"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if paths, err := inputPaths(Streams{inTerminal: true}, []string{"-"}, "crdguard validate"); err != nil || len(paths) != 1 {
		t.Errorf("an explicit -: %v, %v", paths, err)
	}
}

// A directory link below a PATH is read (samples -> ../update), and a
// link that loops is skipped with a note: neither passes in silence.
func TestValidateDirectoryLinks(t *testing.T) {
	dir := filetree.Write(t, map[string]string{"update/bad.yaml": readFile(t, badYAML), "objects/good.yaml": readFile(t, goodYAML)})
	for link, target := range map[string]string{"objects/samples": "../update", "objects/loop": ".."} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "-q", "-o", "json", filepath.Join(dir, "objects"))
	wantErr := "crdguard: note: skipped " + filepath.Join(dir, "objects", "loop") + ": symbolic link to a directory it is in (a loop), not followed\n"
	if r.code != ExitViolations || r.stder != wantErr {
		t.Fatalf("exit %d, stderr %q; want 1, %q", r.code, r.stder, wantErr)
	}
	var sources []string
	for _, res := range decodeReport(t, r).Results {
		sources = append(sources, res.Source)
	}
	want := []string{filepath.Join(dir, "objects", "good.yaml"), filepath.Join(dir, "objects", "samples", "bad.yaml")}
	if sources = slices.Compact(sources); !slices.Equal(sources, want) {
		t.Errorf("sources = %q, want %q", sources, want)
	}
}

// -f/--filename is kubectl's spelling of an input: the same run as the
// PATH arguments, read after them.
func TestValidateFilenameFlag(t *testing.T) {
	positional := crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "json", goodYAML, badYAML)
	for _, args := range [][]string{
		{"-f", goodYAML, "-f", badYAML},
		{"--filename", goodYAML, "--filename=" + badYAML},
		{goodYAML, "-f", badYAML},
	} {
		r := crdguard(t, "", append([]string{"validate", "--crds", exampleCRD, "-o", "json"}, args...)...)
		if r != positional {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and the output of the PATH arguments", args, r.code, r.stder, positional.code)
		}
	}
	if positional.code != ExitViolations {
		t.Errorf("exit %d, want 1 (bad.yaml is denied)", positional.code)
	}
	r := crdguard(t, "", "validate", "--crds", "-", "-f", "-")
	if want := "crdguard: standard input (-) can be read once, and it is given to --crds and the inputs\n"; r.code != ExitUsage || r.stder != want {
		t.Errorf("-f -: exit %d, stderr %q; want 2, %q", r.code, r.stder, want)
	}
}

// Each item of a List is reported at its own line and index, in every
// format, rather than all at the List's first line.
func TestValidateListItemsAtTheirLines(t *testing.T) {
	dir := filetree.Write(t, map[string]string{"list.yaml": `apiVersion: v1
kind: List
items:
- apiVersion: db.example.io/v1
  kind: MySQLCluster
  metadata: {name: a, namespace: shop}
- apiVersion: db.example.io/v1
  kind: MySQLCluster
  metadata: {name: b, namespace: shop}
`})
	list := filepath.Join(dir, "list.yaml")
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "json", list)
	rep := decodeReport(t, r)
	var got []string
	for _, res := range rep.Results {
		item := -1
		if res.Item != nil {
			item = *res.Item
		}
		got = append(got, fmt.Sprintf("%s document %d item %d line %d", res.Name, res.Document, item, res.Line))
	}
	if want := []string{"a document 0 item 0 line 4", "b document 0 item 1 line 7"}; !slices.Equal(got, want) {
		t.Errorf("results %q, want %q", got, want)
	}
	text := crdguard(t, "", "validate", "--crds", exampleCRD, "-q", list).stdout
	if want := list + ":7 (document 1, items[1]): MySQLCluster shop/b is invalid (CREATE):\n"; !strings.Contains(text, want) {
		t.Errorf("text output does not hold %q:\n%s", want, text)
	}
}

// A named pipe given as an input, as a shell's <(...) gives it, is read
// once, by the run: looking ahead for the kinds to compile reads regular
// files only, and would otherwise drain it.
func TestValidateReadsANamedPipeOnce(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "pipe.yaml")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	good := readFile(t, goodYAML)
	go func() {
		// The first reader gets the object, a second one nothing.
		for _, text := range []string{good, ""} {
			f, err := os.OpenFile(pipe, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			_, _ = f.WriteString(text)
			_ = f.Close()
		}
	}()
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "json", pipe)
	if r.code != ExitOK {
		t.Errorf("exit code = %d, want %d; stderr %s", r.code, ExitOK, r.stder)
	}
	if rep := decodeReport(t, r); rep.Summary != (report.Summary{Objects: 1, Allowed: 1}) {
		t.Errorf("summary = %+v, want the pipe's one object, allowed", rep.Summary)
	}
	// Unblock the writer waiting for a second reader.
	if f, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		_ = f.Close()
	}
}

// A named pipe given as PATH is read, and a run blocked opening it (no
// writer ever comes) stops when its context is done, with the cause.
func TestValidateStopsBlockedOnANamedPipe(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "pipe.yaml")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	time.AfterFunc(50*time.Millisecond, func() { cancel(errors.New("stopped")) })
	var out, errOut bytes.Buffer
	code := Run(ctx, []string{"validate", "--crds", exampleCRD, pipe}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if code != ExitInternal || out.String() != "" || errOut.String() != "crdguard: stopped\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 3 and crdguard: stopped", code, out.String(), errOut.String())
	}
}
