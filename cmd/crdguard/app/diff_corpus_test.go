package app

import (
	"encoding/json"
	"encoding/xml"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/pkg/report"
)

// corpusFormats are the output formats the corpus goldens cover, each with
// its golden file's extension.
var corpusFormats = []struct {
	format report.Format
	ext    string
}{
	{report.Text, "txt"},
	{report.JSON, "json"},
	{report.Markdown, "md"},
	{report.SARIF, "sarif"},
	{report.JUnit, "xml"},
}

// TestDiffCorpusGolden runs crdguard diff on the CRD sets of real projects
// between two releases (hack/tools/corpora-previous → hack/tools/corpora),
// directory against directory as a user would, and compares every output
// format with testdata/diff/corpus/NAME.EXT. The goldens are the review
// record of what the checks make of real upgrades: refresh them with
// `make update-golden` and read the diff.
func TestDiffCorpusGolden(t *testing.T) {
	goldenDir, err := filepath.Abs(filepath.Join(diffTestdata, "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	type pair struct {
		name     string
		old, new string
		want     []string
	}
	var pairs []pair
	// want pins the changes that matter in each upgrade (all the breaking
	// ones and the new enum value), found by reading the two releases'
	// CRDs, as "CRD enforcement rule field", so that a careless -update
	// cannot quietly drop one.
	const root = "spec.versions[0].schema.openAPIV3Schema."
	for _, c := range []struct {
		name string
		set  corpus.Set
		want []string
	}{
		{"gateway-api", corpus.GatewayAPI, []string{
			// ReferenceGrant now requires spec, in both versions.
			"referencegrants.gateway.networking.k8s.io Deny diff/required-changed " + root + "required",
			"referencegrants.gateway.networking.k8s.io Deny diff/required-changed spec.versions[1].schema.openAPIV3Schema.required",
		}},
		{"cert-manager", corpus.CertManager, []string{
			// Exactly one of tpp, cloud and the new ngts.
			"clusterissuers.cert-manager.io Deny diff/validation-rules-changed " + root + "properties.spec.properties.venafi.x-kubernetes-validations[0]",
			"issuers.cert-manager.io Deny diff/validation-rules-changed " + root + "properties.spec.properties.venafi.x-kubernetes-validations[0]",
			"certificates.cert-manager.io Warn diff/enum-value-added " + root + "properties.spec.properties.keystores.properties.pkcs12.properties.profile.enum",
		}},
		{"prometheus-operator", corpus.PrometheusOperator, []string{
			// DaemonSet mode forbids scrapeConfigSelector and probeSelector.
			"prometheusagents.monitoring.coreos.com Deny diff/validation-rules-changed " + root + "properties.spec.x-kubernetes-validations[4]",
			"prometheusagents.monitoring.coreos.com Deny diff/validation-rules-changed " + root + "properties.spec.x-kubernetes-validations[5]",
			"prometheuses.monitoring.coreos.com Deny diff/minimum-changed " + root + "properties.spec.properties.minReadySeconds.minimum",
			"scrapeconfigs.monitoring.coreos.com Deny diff/minimum-changed " + root + "properties.spec.properties.dockerSDConfigs.items.properties.hostNetworkingHost.minLength",
			"scrapeconfigs.monitoring.coreos.com Deny diff/maximum-changed " + root + "properties.spec.properties.dockerSDConfigs.items.properties.port.maximum",
			"scrapeconfigs.monitoring.coreos.com Deny diff/minimum-changed " + root + "properties.spec.properties.dockerSDConfigs.items.properties.port.minimum",
			// The API server checks no integer's format: nothing stored is rejected.
			"scrapeconfigs.monitoring.coreos.com Warn diff/format-changed " + root + "properties.spec.properties.dockerSDConfigs.items.properties.port.format",
		}},
	} {
		old, err := c.set.Previous().Path()
		if err != nil {
			t.Fatal(err)
		}
		new, err := c.set.Path()
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, pair{c.name, old, new, c.want})
	}
	// The reports name the files they read: run from the module cache with
	// paths relative to it ("sigs.k8s.io/gateway-api@v1.6.3/config/...")
	// so that the goldens are the same on every machine.
	modCache := goEnv(t, "GOMODCACHE")
	t.Chdir(modCache)
	// The version that goes into SARIF is a test binary's: "(devel)".

	sarifDir := t.TempDir()
	var sarifFiles []string
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			oldArg, newArg := relTo(t, modCache, p.old), relTo(t, modCache, p.new)
			for _, f := range corpusFormats {
				r := crdguard(t, "", "diff", "-o", string(f.format), oldArg, newArg)
				// Each release pair has at least one breaking change; stderr
				// holds only notes on what is not a CRD (gateway-api ships a
				// ValidatingAdmissionPolicy beside its CRDs).
				if r.code != ExitViolations || !onlyNotes(r.stder) {
					t.Errorf("%s: exit %d, stderr %q", f.format, r.code, r.stder)
				}
				golden.Assert(t, filepath.Join(goldenDir, p.name+"."+f.ext), []byte(r.stdout))
				checkCorpusOutput(t, f.format, r.stdout, p.want)
				if f.format == report.SARIF {
					file := filepath.Join(sarifDir, p.name+".sarif")
					writeFile(t, file, r.stdout)
					sarifFiles = append(sarifFiles, file)
				}
			}
		})
	}
	// One validator run for all the SARIF logs: it is a go run.
	validateSARIFSchema(t, sarifFiles...)
}

// checkCorpusOutput checks what a golden comparison cannot: that the
// output is well-formed for the tools that consume it, and that every real
// change was explained by a check and the known ones are there.
func checkCorpusOutput(t *testing.T, format report.Format, out string, want []string) {
	t.Helper()
	switch format {
	case report.JSON:
		var rep report.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("json: %v", err)
		}
		found := map[string]bool{}
		for _, res := range rep.Results {
			for _, v := range res.Violations {
				if v.Rule == "unclassified" {
					t.Errorf("%s: unclassified change at %s: %s", res.Name, v.Field, v.Message)
				}
				found[res.Name+" "+string(v.Enforcement)+" "+v.RuleID()+" "+v.Field] = true
				checkFindingLine(t, res, v)
			}
		}
		for _, w := range want {
			if !found[w] {
				t.Errorf("missing finding %q", w)
			}
		}
	case report.JUnit:
		var suites struct {
			XMLName xml.Name `xml:"testsuites"`
			Suites  []struct {
				Tests int `xml:"tests,attr"`
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(out), &suites); err != nil {
			t.Fatalf("junit does not parse: %v", err)
		}
		if len(suites.Suites) != 1 || suites.Suites[0].Tests != len(suites.Suites[0].Cases) || suites.Suites[0].Tests == 0 {
			t.Errorf("junit: %+v", suites)
		}
	case report.SARIF:
		checkSARIF(t, []byte(out))
	}
}

// checkFindingLine checks a finding's line against the file itself (the
// test runs where the report's sources are): the line must hold one of the
// keys of the finding's path (the node, or the nearest ancestor still there
// for a removed one), or be a sequence item when the path indexes one. The
// goldens alone would only say the lines did not move.
func checkFindingLine(t *testing.T, res report.Result, v report.Finding) {
	t.Helper()
	lines := strings.Split(readFile(t, res.Source), "\n")
	if v.Line < res.Line || v.Line > len(lines) {
		t.Errorf("%s %s: line %d outside the document (from line %d)", res.Name, v.Field, v.Line, res.Line)
		return
	}
	text := strings.TrimSpace(lines[v.Line-1])
	item := strings.HasPrefix(text, "- ")
	key, _, _ := strings.Cut(strings.TrimPrefix(text, "- "), ":")
	for _, step := range pathSteps(v.Field) {
		if step == key {
			return
		}
		if _, err := strconv.Atoi(step); err == nil && item {
			return
		}
	}
	t.Errorf("%s %s: line %d is %q, not a node of the path", res.Name, v.Field, v.Line, text)
}

// pathSteps are the names and subscripts of a field path, a subscript
// whole even when it holds dots ("metadata.annotations[a.io/b]").
func pathSteps(path string) []string {
	var steps []string
	for _, m := range subscript.FindAllStringSubmatch(path, -1) {
		steps = append(steps, m[1])
	}
	return append(steps, strings.FieldsFunc(subscript.ReplaceAllString(path, "."), func(r rune) bool { return r == '.' })...)
}

var subscript = regexp.MustCompile(`\[([^\[\]]*)\]`)

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// relTo is path relative to dir, which must contain it.
func relTo(t *testing.T, dir, path string) string {
	t.Helper()
	rel, err := filepath.Rel(dir, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		t.Fatalf("%s is not in the module cache %s (a replace directive?): %v", path, dir, err)
	}
	return filepath.ToSlash(rel)
}

// onlyNotes says whether stderr holds nothing but notes.
func onlyNotes(stderr string) bool {
	for line := range strings.Lines(stderr) {
		if !strings.HasPrefix(line, "crdguard: note: ") {
			return false
		}
	}
	return true
}
