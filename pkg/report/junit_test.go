package report

import (
	"encoding/xml"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// junitTestSuites is the document junitWriter writes around the test cases,
// for decoding it.
type junitTestSuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Skipped  int              `xml:"skipped,attr"`
	Suites   []junitTestSuite `xml:"testsuite"`
}

type junitTestSuite struct {
	Name      string          `xml:"name,attr"`
	Tests     int             `xml:"tests,attr"`
	Failures  int             `xml:"failures,attr"`
	Errors    int             `xml:"errors,attr"`
	Skipped   int             `xml:"skipped,attr"`
	TestCases []junitTestCase `xml:"testcase"`
}

func TestJUnitGolden(t *testing.T) {
	golden.Assert(t, filepath.Join("testdata", "report.xml"), render(t, JUnit, sampleReport(), Options{}))
}

func TestJUnitParsesBack(t *testing.T) {
	tests := []struct {
		name    string
		results []Result
		command string
		suite   string
	}{
		{"sample", sampleResults(), "", "crdguard validate"},
		{"empty", nil, "lint", "crdguard lint"},
		{"text that XML cannot hold as is", []Result{{
			Source: "a.yaml", Kind: "ConfigMap", Namespace: "x", Name: "c",
			Violations: []Finding{{Field: "data[k]", Message: "Invalid value: \"]]>\x1b\": not allowed", Policy: "schema", Enforcement: v1alpha1.Deny}},
		}}, "diff", "crdguard diff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := New(tt.results)
			out := render(t, JUnit, rep, Options{Command: tt.command})
			if !strings.HasPrefix(string(out), xml.Header) {
				t.Errorf("output does not start with the XML header: %q", out[:40])
			}
			var doc junitTestSuites
			if err := xml.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Suites) != 1 {
				t.Fatalf("%d suites, want 1", len(doc.Suites))
			}
			suite := doc.Suites[0]
			if suite.Name != tt.suite {
				t.Errorf("suite name = %q, want %q", suite.Name, tt.suite)
			}
			var failures, errs, skipped int
			for _, tc := range suite.TestCases {
				if tc.Failure != nil {
					failures++
				}
				if tc.Error != nil {
					errs++
				}
				if tc.Skipped != nil {
					skipped++
				}
			}
			s := rep.Summary
			for _, got := range [][4]int{
				{doc.Tests, doc.Failures, doc.Errors, doc.Skipped},
				{suite.Tests, suite.Failures, suite.Errors, suite.Skipped},
				{len(suite.TestCases), failures, errs, skipped},
			} {
				if want := [4]int{s.Objects, s.Denied, s.Errors, s.Skipped}; got != want {
					t.Errorf("tests/failures/errors/skipped = %v, want %v", got, want)
				}
			}
		})
	}
}

// The decoded text must say what the finding said, except for the
// characters XML cannot carry at all.
func TestJUnitTextSurvives(t *testing.T) {
	rep := New([]Result{{
		Source: "a.yaml", Kind: "ConfigMap", Namespace: "x", Name: "c",
		Violations: []Finding{
			{Field: "data[k]", Message: "Invalid value: \"]]>\x1b\": not <allowed> & \"quoted\"", Policy: "schema", Enforcement: v1alpha1.Deny},
			{Field: "data[j]", Message: "second", Policy: "schema", Enforcement: v1alpha1.Deny},
		},
	}})
	var doc junitTestSuites
	if err := xml.Unmarshal(render(t, JUnit, rep, Options{}), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Suites[0].TestCases[0].Failure.Text
	want := "data[k]: Invalid value: \"]]>\uFFFD\": not <allowed> & \"quoted\"\ndata[j]: second"
	if got != want {
		t.Errorf("failure text = %q, want %q", got, want)
	}
}

func TestJUnitCase(t *testing.T) {
	tests := []struct {
		name   string
		result Result
		want   junitTestCase
	}{
		{
			name: "deny findings fail, the rest go to system-out",
			result: Result{Source: "a.yaml", Document: 1, Kind: "Pod", Namespace: "x", Name: "p", Violations: []Finding{
				{Field: "spec.a", Message: "m1", Policy: "schema", Enforcement: v1alpha1.Deny},
				{Field: "spec.b", Message: "m2", Policy: "p", Rule: "r", Enforcement: v1alpha1.Warn},
			}, Warnings: []string{"deprecated"}},
			want: junitTestCase{
				ClassName: "a.yaml", Name: "Pod x/p (document 2)",
				Failure:   &junitProblem{Message: "1 violation", Type: "Deny", Text: "spec.a: m1"},
				SystemOut: &junitText{Text: "[Warn] [p/r] spec.b: m2\nWarning: deprecated"},
			},
		},
		{
			name:   "input error without object",
			result: Result{Source: "bad.yaml", Error: "missing kind"},
			want: junitTestCase{
				ClassName: "bad.yaml", Name: "document 1",
				Error: &junitProblem{Message: "missing kind", Type: "InputError", Text: "missing kind"},
			},
		},
		{
			name:   "source that is not a YAML stream",
			result: Result{Source: "types.go", NotStream: true, Line: 20, Kind: "Widget", Name: "WidgetSpec.Paused"},
			want:   junitTestCase{ClassName: "types.go", Name: "Widget WidgetSpec.Paused (line 20)"},
		},
		{
			name:   "source that is not a YAML stream, without object or line",
			result: Result{Source: "types.go", NotStream: true},
			want:   junitTestCase{ClassName: "types.go", Name: "types.go"},
		},
		{
			name:   "skipped cluster-scoped object",
			result: Result{Source: "ns.yaml", Kind: "Namespace", Name: "a", Skipped: true, SkipReason: "no schema"},
			want: junitTestCase{
				ClassName: "ns.yaml", Name: "Namespace a (document 1)",
				Skipped: &junitSkipped{Message: "no schema"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.result
			r.Decide()
			if got := junitCase(&r); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", dumpCase(got), dumpCase(tt.want))
			}
		})
	}
}

// dumpCase shows the pointed-to failure, error and skipped elements, which
// %+v would print as addresses.
func dumpCase(tc junitTestCase) string {
	out, err := xml.Marshal(tc)
	if err != nil {
		return err.Error()
	}
	return string(out)
}
