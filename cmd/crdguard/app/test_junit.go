package app

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/crdguard/crdguard/pkg/testsuite"
)

// JUnit XML of crdguard test: a testsuite per suite file, a testcase per
// case, in the shape CI test report readers (Jenkins, GitLab, GitHub
// actions) take. pkg/report's JUnit has a testcase per object; a test
// case here is a case of a suite.
type testJUnitSuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Suites   []testJUnitSuite `xml:"testsuite"`
}

type testJUnitSuite struct {
	Name     string          `xml:"name,attr"`
	File     string          `xml:"file,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Errors   int             `xml:"errors,attr"`
	Cases    []testJUnitCase `xml:"testcase"`
}

type testJUnitCase struct {
	ClassName string            `xml:"classname,attr"`
	Name      string            `xml:"name,attr"`
	Failure   *testJUnitProblem `xml:"failure,omitempty"`
	Error     *testJUnitProblem `xml:"error,omitempty"`
}

type testJUnitProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// writeTestJUnit writes the runs as JUnit XML. A failure's message names
// the expectations that failed; its text is what the text output prints
// under the case.
func writeTestJUnit(w io.Writer, runs []suiteRun) error {
	out := testJUnitSuites{Name: "crdguard test"}
	for _, r := range runs {
		s := testJUnitSuite{Name: r.name, File: r.path}
		for i := range r.cases {
			c := &r.cases[i]
			jc := testJUnitCase{ClassName: r.path, Name: c.Name}
			switch {
			case c.Err != nil:
				jc.Error = &testJUnitProblem{Message: c.Err.Error(), Text: fmt.Sprintf("%s %s: %v", c.Operation, c.Object, c.Err)}
				s.Errors++
			case !c.Passed():
				jc.Failure = &testJUnitProblem{Message: failureMessage(c), Text: fmt.Sprintf("%s %s\n%s", c.Operation, c.Object, strings.Join(failureLines(c), "\n"))}
				s.Failures++
			}
			s.Cases = append(s.Cases, jc)
		}
		s.Tests = len(s.Cases)
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// failureMessage names what failed: the result, the rules, unexpected
// findings.
func failureMessage(c *testsuite.CaseResult) string {
	var failed []string
	for _, check := range c.Checks {
		if !check.OK {
			failed = append(failed, check.Subject)
		}
	}
	msg := "failed: " + strings.Join(failed, ", ")
	if n := len(c.Unexpected); n > 0 {
		if len(failed) == 0 {
			msg = "failed:"
		} else {
			msg += ";"
		}
		msg += fmt.Sprintf(" %d unexpected findings", n)
	}
	return msg
}
