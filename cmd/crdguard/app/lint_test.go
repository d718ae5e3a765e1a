package app

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/report"
)

// The lint command runs on the gotypes testdata packages, each a small API
// with a CRD next to it.
const lintTestdata = "../../../pkg/schema/gotypes/testdata/"

func lintPkg(name string) string { return lintTestdata + name }
func lintCRD(name string) string { return lintTestdata + name + "/crd.yaml" }

// goFile is where the lint command says a testdata file is: absolute,
// because it lies outside the working directory.
func goFile(t *testing.T, pkg string) string {
	t.Helper()
	abs, err := filepath.Abs(lintTestdata + pkg + "/types.go")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func TestLintText(t *testing.T) {
	pruned, missing := goFile(t, "pruned-field"), goFile(t, "missing-crd")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{
			name: "findings at their Go places",
			args: []string{"--crds", lintCRD("pruned-field"), lintPkg("pruned-field")},
			want: pruned + ":13: kind Widget prunedfield.test.crdguard.dev/v1\n" +
				pruned + ":22: WidgetSpec.Replicas in Widget prunedfield.test.crdguard.dev/v1\n" +
				"  error [pruned-field] spec.replicas: WidgetSpec.Replicas is written as spec.replicas, but the schema does not declare it: the API server prunes it on every write; fix: regenerate the CRD, or add the property to its schema\n" +
				// A third-party field is reported at the operator's field that
				// holds it, with its own declaration as context.
				pruned + ":28: ObjectMeta.Labels in Widget prunedfield.test.crdguard.dev/v1\n" +
				"  error [pruned-field] spec.podMetadata.labels: ObjectMeta.Labels is written as spec.podMetadata.labels, but the schema does not declare it: the API server prunes it on every write (declared at k8s.io/apimachinery@v0.37.2/pkg/apis/meta/v1/types.go:252); fix: regenerate the CRD, or add the property to its schema\n" +
				pruned + ":36: Template.Metadata in Widget prunedfield.test.crdguard.dev/v1\n" +
				"  error [pruned-field] spec.template.metadata: Template.Metadata is a v1.ObjectMeta, but the schema declares an object without properties: the API server prunes every field of it; fix: generate the CRD with controller-gen's crd:generateEmbeddedObjectMeta=true, which declares name, namespace, labels, annotations and finalizers\n" +
				"1 kind checked: 3 errors, 0 warnings, 0 infos\n",
		},
		{
			// A finding about a whole kind sits at its declaration, without
			// field.Path's "<nil>".
			name: "findings about whole kinds",
			args: []string{"--crds", lintCRD("clean"), lintPkg("missing-crd")},
			want: missing + ":11: kind Widget missingcrd.test.crdguard.dev/v1\n" +
				"  error [missing-crd] no CustomResourceDefinition defines kind Widget in group \"missingcrd.test.crdguard.dev\" for v1.Widget; fix: pass the CRD with --crds, or check +groupName\n" +
				missing + ":17: kind Gadget missingcrd.test.crdguard.dev/v1\n" +
				"  error [missing-crd] no CustomResourceDefinition defines kind Gadget in group \"missingcrd.test.crdguard.dev\" for v1.Gadget; fix: pass the CRD with --crds, or check +groupName\n" +
				"2 kinds checked: 2 errors, 0 warnings, 0 infos\n",
		},
		{
			name: "quiet: only places with findings",
			args: []string{"-q", "--crds", lintCRD("clean"), lintPkg("clean")},
			want: "1 kind checked: 0 errors, 0 warnings, 0 infos\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := crdguard(t, "", append([]string{"lint"}, tt.args...)...)
			if r.stder != "" {
				t.Errorf("stderr %q", r.stder)
			}
			if r.stdout != tt.want {
				t.Errorf("stdout\n got: %s\nwant: %s", r.stdout, tt.want)
			}
		})
	}
}

// TestLintSharedType lints a spec type two kinds share: the text reports
// its finding once, naming both kinds; JSON keeps a result per kind.
func TestLintSharedType(t *testing.T) {
	args := []string{"lint", "--crds", "testdata/lint-shared/crd.yaml", "./testdata/lint-shared"}
	r := crdguard(t, "", args...)
	const file = "testdata/lint-shared/types.go"
	want := file + ":12: kind Store shared.test.crdguard.dev/v1\n" +
		file + ":21: kind ClusterStore shared.test.crdguard.dev/v1\n" +
		file + ":30: StoreSpec.Verify in ClusterStore shared.test.crdguard.dev/v1, Store shared.test.crdguard.dev/v1\n" +
		"  error [zero-value-default] spec.verify: StoreSpec.Verify drops false on the wire (omitempty), and the default true takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns false into true; fix: make it a pointer (*bool) so that false is sent\n" +
		"2 kinds checked: 1 error, 0 warnings, 0 infos\n"
	if r.code != ExitViolations || r.stder != "" || r.stdout != want {
		t.Errorf("exit %d, stderr %q, stdout\n got: %s\nwant: %s", r.code, r.stder, r.stdout, want)
	}
	var got []string
	for _, res := range decodeReport(t, crdguard(t, "", append(args, "-o", "json")...)).Results {
		for _, v := range res.Violations {
			got = append(got, strings.Join([]string{res.Source, itoa(res.Line), res.Kind, res.Name, v.Field, v.RuleID()}, " "))
		}
	}
	assertLines(t, "violations", got, []string{
		file + " 30 ClusterStore StoreSpec.Verify spec.verify gotypes/zero-value-default",
		file + " 30 Store StoreSpec.Verify spec.verify gotypes/zero-value-default",
	})
}

func TestLintJSON(t *testing.T) {
	r := crdguard(t, "", "lint", "--crds", lintCRD("zero-value-default"), "-o", "json", lintPkg("zero-value-default"))
	if r.code != ExitViolations {
		t.Fatalf("exit %d, stderr %q", r.code, r.stder)
	}
	rep := decodeReport(t, r)
	if rep.Summary != (report.Summary{Objects: 5, Allowed: 3, Denied: 2}) {
		t.Errorf("summary = %+v", rep.Summary)
	}
	file := goFile(t, "zero-value-default")
	var got []string
	for _, res := range rep.Results {
		// A Go file is not a YAML stream: "document" (always 0) means nothing.
		if !res.NotStream || res.Document != 0 {
			t.Errorf("%s:%d: notStream %v, document %d; want true, 0", res.Source, res.Line, res.NotStream, res.Document)
		}
		for _, v := range res.Violations {
			got = append(got, strings.Join([]string{res.Source, itoa(res.Line), res.APIVersion, res.Kind, res.Name, v.Field, v.Type, v.RuleID(), string(v.Enforcement)}, " "))
		}
	}
	want := []string{
		file + " 19 zerovaluedefault.test.crdguard.dev/v1 Widget WidgetSpec.Replicas spec.replicas FieldValueInvalid gotypes/zero-number-default Warn",
		file + " 20 zerovaluedefault.test.crdguard.dev/v1 Widget WidgetSpec.Enabled spec.enabled FieldValueInvalid gotypes/zero-value-default Deny",
		file + " 21 zerovaluedefault.test.crdguard.dev/v1 Widget WidgetSpec.Mode spec.mode FieldValueInvalid gotypes/empty-string-default Audit",
		file + " 35 zerovaluedefault.test.crdguard.dev/v1 Widget WidgetSpec.Level spec.level FieldValueInvalid gotypes/zero-value-default Deny",
	}
	assertLines(t, "violations", got, want)
	if msg := rep.Results[2].Violations[0].Message; msg != "WidgetSpec.Enabled drops false on the wire (omitzero), and the default true takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns false into true; fix: make it a pointer (*bool) so that false is sent" {
		t.Errorf("message = %q", msg)
	}
}

func TestLintSARIFPointsAtGoSource(t *testing.T) {
	r := crdguard(t, "", "lint", "--crds", lintCRD("type-mismatch"), "-o", "sarif", lintPkg("type-mismatch"))
	if r.code != ExitViolations {
		t.Fatalf("exit %d, stderr %q", r.code, r.stder)
	}
	res := decodeSARIF(t, r)
	if len(res) != 8 {
		t.Fatalf("got %d results, want 8", len(res))
	}
	loc := res[0].Locations[0]
	if res[0].RuleID != "gotypes/type-mismatch" || res[0].Level != "error" ||
		loc.PhysicalLocation.ArtifactLocation.URI != "file://"+goFile(t, "type-mismatch") ||
		loc.PhysicalLocation.Region.StartLine != 22 ||
		loc.LogicalLocations[0].FullyQualifiedName != "Widget/WidgetSpec.Replicas.spec.replicas" {
		t.Errorf("first result = %+v", res[0])
	}
}

func TestLintExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"clean against its CRD", []string{"--crds", lintCRD("clean"), lintPkg("clean")}, ExitOK},
		{"clean without a CRD", []string{lintPkg("clean")}, ExitOK},
		{"infos only", []string{"--crds", lintCRD("zero-value-omitted"), lintPkg("zero-value-omitted")}, ExitOK},
		{"warnings only", []string{"--crds", lintCRD("zero-number-default"), "--severity", "zero-value-default=off", lintPkg("zero-number-default")}, ExitOK},
		{"infos raised to errors", []string{"--crds", lintCRD("zero-value-omitted"), "--severity", "zero-value-omitted=error", lintPkg("zero-value-omitted")}, ExitViolations},
		{"failing on warnings, infos only", []string{"--crds", lintCRD("zero-value-omitted"), "--fail-on", "warning", lintPkg("zero-value-omitted")}, ExitOK},
		{"failing on warnings", []string{"--crds", lintCRD("zero-number-default"), "--fail-on", "warning", "--severity", "zero-value-default=off", lintPkg("zero-number-default")}, ExitViolations},
		{"failing on infos", []string{"--crds", lintCRD("zero-value-omitted"), "--fail-on", "info", lintPkg("zero-value-omitted")}, ExitViolations},
		{"failing on infos, clean", []string{"--crds", lintCRD("clean"), "--fail-on", "info", lintPkg("clean")}, ExitOK},
		{"errors turned off", []string{"--crds", lintCRD("pruned-field"), "--severity", "pruned-field=off", lintPkg("pruned-field")}, ExitOK},
		{"tag checks without a CRD", []string{lintPkg("missing-json-tag")}, ExitViolations},
		{"a kind without its CRD", []string{"--crds", lintCRD("clean"), lintPkg("pruned-field")}, ExitViolations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := crdguard(t, "", append([]string{"lint", "-q"}, tt.args...)...)
			if r.code != tt.code || r.stder != "" {
				t.Errorf("exit %d (want %d), stderr %q\n%s", r.code, tt.code, r.stder, r.stdout)
			}
		})
	}
}

func TestLintUsageErrors(t *testing.T) {
	checkUsageErrors(t, []usageErrorCase{
		{"no package", []string{"lint"}, "crdguard: requires at least 1 arg(s), only received 0\nRun 'crdguard lint --help' for usage.\n"},
		{"unknown check", []string{"lint", "--severity", "nope=error", lintPkg("clean")}, "crdguard: --severity: severity[nope]: Not found: \"nope\"\n"},
		{"bad level", []string{"lint", "--severity", "pruned-field=fatal", lintPkg("clean")}, "crdguard: --severity: severity[pruned-field]: Unsupported value: \"fatal\": supported values: \"error\", \"warning\", \"info\", \"off\"\n"},
		{"bad fail-on", []string{"lint", "--fail-on", "off", lintPkg("clean")}, "crdguard: invalid argument \"off\" for \"--fail-on\" flag: unknown value \"off\": valid values are error, warning, info\nRun 'crdguard lint --help' for usage.\n"},
		{"malformed severity", []string{"lint", "--severity", "pruned-field", lintPkg("clean")}, "crdguard: --severity \"pruned-field\": want CHECK=LEVEL\n"},
		{"no such directory", []string{"lint", "./nope/..."}, "crdguard: ./nope/...: no such directory\n"},
		{"no root types", []string{"lint", "../../../pkg/report"}, "crdguard: no CRD root types (+kubebuilder:object:root=true, or embedded TypeMeta and ObjectMeta) in ../../../pkg/report\n"},
		// Fail closed: a wrong file must not lint against no schemas.
		{"no CRD in --crds", []string{"lint", "--crds", exampleDir + "good.yaml", lintPkg("clean")}, "crdguard: " + exampleDir + "good.yaml holds no CustomResourceDefinition\n"},
		{"invalid CRD", []string{"lint", "--crds", "testdata/invalid-crd.yaml", lintPkg("clean")}, "crdguard: testdata/invalid-crd.yaml:1 (document 1): CustomResourceDefinition \"mysqlclusters.db.example.io\" is invalid:\n  testdata/invalid-crd.yaml:13: spec.scope: Unsupported value: \"Galactic\": supported values: \"Cluster\", \"Namespaced\"\n"},
	})
	// A package that does not compile cannot be linted.
	r := crdguard(t, "", "lint", "example.com/nope")
	// A package error without a position is its message alone, not go/packages' "-: msg".
	if r.code != ExitUsage || !strings.HasPrefix(r.stder, "crdguard: loading Go packages: ") || strings.Contains(r.stder, "-: ") {
		t.Errorf("missing package: exit %d, stderr %q", r.code, r.stder)
	}
}

func TestLintHelpSaysWhatSeveritiesMean(t *testing.T) {
	r := crdguard(t, "", "lint", "--help")
	want := "Severities:\n" +
		"  error    a user loses data or is refused; fails the run\n" +
		"  warning  probably unintended\n" +
		"  info     the rest: worth knowing, rarely a defect\n"
	if r.code != ExitOK || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d, help lacks\n%s\n%s", r.code, want, r.stdout)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
