package app

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/report"
)

const (
	exampleCRD = "../../../examples/mysql/crd.yaml"
	goodYAML   = "../../../examples/mysql/good.yaml"
	badYAML    = "../../../examples/mysql/bad.yaml"
)

type run struct {
	code          int
	stdout, stder string
}

func crdguard(t *testing.T, stdin string, args ...string) run {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(t.Context(), args, Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut})
	return run{code, out.String(), errOut.String()}
}

// usageErrorCase is a command line crdguard refuses as a usage error, and
// the whole of what it prints on stderr.
type usageErrorCase struct {
	name   string
	args   []string
	stderr string
}

// checkUsageErrors runs each case's command line, with nothing on stdin,
// and checks that crdguard exits 2, prints nothing on stdout and exactly
// the case's stderr.
func checkUsageErrors(t *testing.T, cases []usageErrorCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := crdguard(t, "", tc.args...)
			if r.code != ExitUsage || r.stdout != "" || r.stder != tc.stderr {
				t.Errorf("%q: exit %d, stdout %q, stderr\n got: %q\nwant exit 2, no stdout, stderr\n     %q", tc.args, r.code, r.stdout, r.stder, tc.stderr)
			}
		})
	}
}

func decodeReport(t *testing.T, r run) report.Report {
	t.Helper()
	var rep report.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s", err, r.stdout)
	}
	return rep
}

// sarifResult is what the tests read of a SARIF result: its rule, level,
// message and where it points, in a file and, for lint, in the Go types.
type sarifResult struct {
	RuleID  string `json:"ruleId"`
	Level   string `json:"level"`
	Message struct {
		Text string `json:"text"`
	} `json:"message"`
	Locations []struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region struct {
				StartLine   int `json:"startLine"`
				StartColumn int `json:"startColumn"`
			} `json:"region"`
		} `json:"physicalLocation"`
		LogicalLocations []struct {
			FullyQualifiedName string `json:"fullyQualifiedName"`
		} `json:"logicalLocations"`
	} `json:"locations"`
}

// decodeSARIF reads the results of the one run of the SARIF 2.1.0 log on
// stdout.
func decodeSARIF(t *testing.T, r run) []sarifResult {
	t.Helper()
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []sarifResult `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("stdout is not a SARIF 2.1.0 log of one run: %v\n%s", err, r.stdout)
	}
	return log.Runs[0].Results
}

// assertLines checks that got is want, line for line; what names the
// lines in the failure.
func assertLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s\n got: %q\nwant: %q", what, got, want)
	}
}

// fields lists "field type rule" of every violation of a result.
func fields(res report.Result) []string {
	var out []string
	for _, v := range res.Violations {
		out = append(out, v.Field+" "+v.Type+" "+v.Rule)
	}
	return out
}

func TestValidateExample(t *testing.T) {
	r := crdguard(t, "", "validate", "--crds", exampleCRD, goodYAML, badYAML)
	if r.code != ExitViolations {
		t.Errorf("exit code = %d, want %d; stderr: %s", r.code, ExitViolations, r.stder)
	}
	for _, line := range []string{
		"../../../examples/mysql/good.yaml:1 (document 1): MySQLCluster shop/prod is valid (CREATE)",
		"../../../examples/mysql/bad.yaml:3 (document 1): MySQLCluster shop/staging is invalid (CREATE):",
		"  * ../../../examples/mysql/bad.yaml:14:3: spec.resource: Forbidden: unknown field \"spec.resource\"",
		`  * ../../../examples/mysql/bad.yaml:9:3: spec.version: Invalid value: "integer": spec.version in body must be of type string: "integer"`,
		"../../../examples/mysql/bad.yaml:21 (document 2): MySQLCluster default/Reporting_DB is invalid (CREATE):",
		// An object-level finding has no position of its own.
		"  * <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
		`  * ../../../examples/mysql/bad.yaml:31:5: spec.storage.reclaimPolicy: Unsupported value: "Destroy": supported values: "Retain", "Delete"`,
		"3 objects: 1 allowed, 2 denied, 0 skipped, 0 errors",
	} {
		if !strings.Contains(r.stdout, line+"\n") {
			t.Errorf("output lacks line %q\n%s", line, r.stdout)
		}
	}
	if r.stder != "" {
		t.Errorf("stderr = %q, want nothing", r.stder)
	}

	if r := crdguard(t, "", "validate", "--crds", exampleCRD, goodYAML); r.code != ExitOK {
		t.Errorf("good example: exit code = %d, want 0\n%s%s", r.code, r.stdout, r.stder)
	}
}

func TestValidateJSON(t *testing.T) {
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "json", badYAML)
	if r.code != ExitViolations {
		t.Fatalf("exit code = %d, want 1; stderr: %s", r.code, r.stder)
	}
	rep := decodeReport(t, r)
	if rep.Version != report.JSONVersion || rep.Summary != (report.Summary{Objects: 2, Denied: 2}) {
		t.Errorf("version %q summary %+v", rep.Version, rep.Summary)
	}
	want := []string{
		"spec.resource FieldValueForbidden unknown-field",
		"spec.storage.size FieldValueInvalid validation",
		"spec.users[0].privileges[1] FieldValueDuplicate validation",
		"spec.users[1] FieldValueDuplicate validation",
		"spec.version FieldValueTypeInvalid validation",
		"<nil> FieldValueInvalid validation",
	}
	got := fields(rep.Results[0])
	assertLines(t, "violations", got, want)
	res := rep.Results[0]
	if res.Source != badYAML || res.Document != 0 || res.Line != 3 || res.Namespace != "shop" || res.Name != "staging" || res.Operation != "CREATE" || res.Allowed {
		t.Errorf("result header = %+v", res)
	}
	if v := res.Violations[0]; v.Policy != "schema" || v.Enforcement != v1alpha1.Deny {
		t.Errorf("violation = %+v, want policy schema, enforcement Deny", v)
	}
	// Every finding at its field in bad.yaml; <nil> is the whole document.
	var positions []string
	for _, v := range res.Violations {
		positions = append(positions, fmt.Sprintf("%s %d:%d", v.Field, v.Line, v.Column))
	}
	wantPositions := []string{"spec.resource 14:3", "spec.storage.size 13:5", "spec.users[0].privileges[1] 18:26", "spec.users[1] 19:5", "spec.version 9:3", "<nil> 0:0"}
	if strings.Join(positions, "\n") != strings.Join(wantPositions, "\n") {
		t.Errorf("positions\n got: %q\nwant: %q", positions, wantPositions)
	}
}

func TestValidateUpdate(t *testing.T) {
	// good.yaml moves spec.version from 8.4.0 back to 8.0.36: the CRD's
	// transition rule forbids it, and only on update.
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "--old", "testdata/old-good.yaml", "-o", "json", goodYAML)
	if r.code != ExitViolations {
		t.Fatalf("exit code = %d, want 1; stderr: %s", r.code, r.stder)
	}
	res := decodeReport(t, r).Results[0]
	if res.Operation != "UPDATE" {
		t.Errorf("operation = %q, want UPDATE", res.Operation)
	}
	if len(res.Violations) != 1 || res.Violations[0].Field != "spec.version" || res.Violations[0].Message != `Invalid value: "8.0.36": the MySQL version may not be downgraded` {
		t.Errorf("violations = %+v", res.Violations)
	}
}

func TestValidateBadInput(t *testing.T) {
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "json", "testdata/broken.yaml")
	if r.code != ExitUsage {
		t.Errorf("exit code = %d, want 2", r.code)
	}
	rep := decodeReport(t, r)
	if rep.Summary != (report.Summary{Objects: 4, Allowed: 1, Skipped: 1, Errors: 2, Unreadable: 2}) {
		t.Errorf("summary = %+v", rep.Summary)
	}
	wantErrors := []string{
		"",
		"yaml: line 13: did not find expected ',' or ']'",
		"apiVersion and kind are required: apiVersion and kind missing",
		"",
	}
	for i, want := range wantErrors {
		if got := rep.Results[i].Error; got != want {
			t.Errorf("result %d error = %q, want %q", i, got, want)
		}
	}
	if want := "crdguard: warning: skipped 1 object whose kind no CRD defines: v1 ConfigMap (1)\n"; r.stder != want {
		t.Errorf("stderr = %q, want %q", r.stder, want)
	}
}

func TestValidateMissingSchemas(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	r := crdguard(t, cm, "validate", "--crds", exampleCRD, "--missing-schemas", "error", "-o", "json", "-")
	if r.code != ExitViolations {
		t.Fatalf("exit code = %d, want 1; stderr %s", r.code, r.stder)
	}
	v := decodeReport(t, r).Results[0].Violations
	if len(v) != 1 || v[0].Field != "kind" || v[0].Rule != "missing-schema" || v[0].Message != "Not found: no CustomResourceDefinition defines /v1, Kind=ConfigMap; pass the CRD with --crds" {
		t.Errorf("violations = %+v", v)
	}
	if r := crdguard(t, cm, "validate", "--crds", exampleCRD, "--allow-empty", "-"); r.code != ExitOK || !strings.Contains(r.stdout, "-:1 (document 1): ConfigMap c skipped: no CustomResourceDefinition defines /v1, Kind=ConfigMap") {
		t.Errorf("skip: exit %d\n%s", r.code, r.stdout)
	}
}

func TestValidateUsageErrors(t *testing.T) {
	checkUsageErrors(t, []usageErrorCase{
		{"no path, stdin read by --crds", []string{"validate", "--crds", "-"}, "crdguard: no PATH given, and standard input is read by --crds: give the inputs as files or directories (see 'crdguard validate --help')\n"},
		{"unknown flag", []string{"validate", "--nope", "x"}, "crdguard: unknown flag: --nope\nRun 'crdguard validate --help' for usage.\n"},
		{"bad format", []string{"validate", "-o", "yaml", "x"}, "crdguard: invalid argument \"yaml\" for \"-o, --output\" flag: unknown output format \"yaml\": valid formats are text, json, sarif, junit, markdown\nRun 'crdguard validate --help' for usage.\n"},
		{"bad exclude", []string{"validate", "--crds", exampleCRD, "--exclude", "[", goodYAML}, "crdguard: --exclude: exclude pattern \"[\": syntax error in pattern\n"},
		{"diff without paths", []string{"diff"}, "crdguard: accepts 2 arg(s), received 0\nRun 'crdguard diff --help' for usage.\n"},
		{"bad missing-schemas", []string{"validate", "--missing-schemas", "ignore", goodYAML}, "crdguard: invalid argument \"ignore\" for \"--missing-schemas\" flag: unknown value \"ignore\": valid values are skip, error\nRun 'crdguard validate --help' for usage.\n"},
		{"missing file", []string{"validate", "--crds", exampleCRD, "nope.yaml"}, "crdguard: stat nope.yaml: no such file or directory\n"},
		{"invalid CRD", []string{"validate", "--crds", "testdata/invalid-crd.yaml", goodYAML}, "crdguard: testdata/invalid-crd.yaml:1 (document 1): CustomResourceDefinition \"mysqlclusters.db.example.io\" is invalid:\n  testdata/invalid-crd.yaml:13: spec.scope: Unsupported value: \"Galactic\": supported values: \"Cluster\", \"Namespaced\"\n"},
		{"stdin twice as an input", []string{"validate", "--crds", exampleCRD, "-", "-"}, "crdguard: standard input (-) can be read once, and it is given to the inputs twice\n"},
		{"stdin to --crds twice", []string{"validate", "--crds", "-", "--crds", "-", "--crds", "-", goodYAML}, "crdguard: standard input (-) can be read once, and it is given to --crds 3 times\n"},
		// validate's walk skips a chart's templates; a template given to
		// --crds is named as one rather than as a YAML syntax error.
		{"Helm template as --crds", []string{"validate", "--crds", "testdata/helm-template-crd.yaml", goodYAML}, "crdguard: testdata/helm-template-crd.yaml:1 (document 1): yaml: line 5: did not find expected node content (the document holds Helm template actions: render it with helm template first)\n"},
		{"old object twice", []string{"validate", "--crds", exampleCRD, "--old", "testdata/old-good.yaml", "--old", "testdata/old-good.yaml", goodYAML}, "crdguard: testdata/old-good.yaml:1 (document 1): MySQLCluster shop/prod appears twice in --old\n"},
	})
}

func TestValidateOutputFormats(t *testing.T) {
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "junit", goodYAML, badYAML)
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(r.stdout), &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Tests != 3 || suites.Suites[0].Failures != 2 {
		t.Errorf("junit: %v %+v\n%s", err, suites, r.stdout)
	}
	r = crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "sarif", badYAML)
	results := decodeSARIF(t, r)
	sarifFile := t.TempDir() + "/validate.sarif"
	writeFile(t, sarifFile, r.stdout)
	validateSARIFSchema(t, sarifFile)
	// Each finding at its field's line and column; the object-level ones
	// (<nil>) at their document's first line.
	var got []string
	for _, res := range results {
		region := res.Locations[0].PhysicalLocation.Region
		got = append(got, fmt.Sprintf("%s %d:%d", res.RuleID, region.StartLine, region.StartColumn))
	}
	want := []string{
		"schema/unknown-field 14:3", // spec.resource
		"schema/validation 13:5",    // spec.storage.size
		"schema/validation 18:26",   // spec.users[0].privileges[1]
		"schema/validation 19:5",    // spec.users[1]
		"schema/validation 9:3",     // spec.version
		"schema/validation 3:0",     // <nil>
		"schema/validation 24:3",    // metadata.name
		"schema/validation 31:5",    // spec.storage.reclaimPolicy
		"schema/validation 21:0",    // <nil>
	}
	assertLines(t, "sarif results", got, want)
}

func TestValidateWarnings(t *testing.T) {
	obj := `apiVersion: db.example.io/v1
kind: MySQLCluster
metadata:
  name: prod
  finalizers: [cleanup]
spec:
  version: "8.0.36"
  image: mysql:8.0.36
  storage: {size: 10Gi}
`
	r := crdguard(t, obj, "validate", "--crds", exampleCRD, "-o", "json", "-")
	if r.code != ExitOK {
		t.Fatalf("exit code = %d; %s", r.code, r.stder)
	}
	want := `metadata.finalizers: "cleanup": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`
	if w := decodeReport(t, r).Results[0].Warnings; len(w) != 1 || w[0] != want {
		t.Errorf("warnings = %q, want [%q]", w, want)
	}
}

// writeFile writes content to path, making the directories it needs.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// replaceOnce replaces old, which must occur exactly once in s: a fixture
// derived from a file the test does not own then fails when that file
// changes, rather than check something else.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("the fixture changed: %q occurs %d times, want once", old, n)
	}
	return strings.Replace(s, old, new, 1)
}
