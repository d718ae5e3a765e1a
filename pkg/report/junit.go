package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// The JUnit XML dialect has no standard; these elements and attributes are
// the subset that Jenkins, GitLab and GitHub test reporters all read. The
// testsuites and testsuite elements around the test cases are written by
// junitWriter.
type junitTestCase struct {
	XMLName   xml.Name      `xml:"testcase"`
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

// junitText is multi-line free text. CDATA keeps its line breaks and quotes
// readable in the file; encoding/xml would otherwise write them as &#xA; and
// &#34;.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

// junitWriter writes one test case per document so that CI test reporters
// show each object as a passed, failed, errored or skipped test, grouped by
// file through classname. The counts come first, as attributes of
// testsuites and testsuite, so each test case is rendered to XML as it is
// added and the rendered cases are kept, a line or a few per object, until
// the summary is known: never the objects or their results.
type junitWriter struct {
	suiteName string
	cases     bytes.Buffer
}

func (j *junitWriter) result(_ *bytes.Buffer, r *Result) error {
	j.cases.WriteString("\n")
	enc := xml.NewEncoder(&j.cases)
	enc.Indent("    ", "  ")
	return enc.Encode(junitCase(r))
}

func (j *junitWriter) end(w *bytes.Buffer, s Summary) error {
	var name bytes.Buffer
	if err := xml.EscapeText(&name, []byte(j.suiteName)); err != nil {
		return err
	}
	counts := fmt.Sprintf(`tests="%d" failures="%d" errors="%d" skipped="%d"`, s.Objects, s.Denied, s.Errors, s.Skipped)
	w.WriteString(xml.Header)
	w.WriteString("<testsuites " + counts + ">\n  <testsuite name=\"" + name.String() + "\" " + counts + ">")
	if j.cases.Len() > 0 {
		w.Write(j.cases.Bytes())
		w.WriteString("\n  ")
	}
	_, err := w.WriteString("</testsuite>\n</testsuites>\n")
	return err
}

func junitCase(r *Result) junitTestCase {
	tc := junitTestCase{ClassName: r.Source, Name: junitCaseName(r)}
	switch r.outcome() {
	case outcomeError:
		tc.Error = &junitProblem{Message: r.Error, Type: "InputError", Text: xmlSafe(r.Error)}
	case outcomeSkipped:
		tc.Skipped = &junitSkipped{Message: r.SkipReason}
	case outcomeDenied:
		deny := r.denials()
		lines := make([]string, len(deny))
		for i, f := range deny {
			lines[i] = junitFindingLine(r, f)
		}
		tc.Failure = &junitProblem{
			Message: plural(len(deny), "violation"),
			Type:    string(v1alpha1.Deny),
			Text:    xmlSafe(strings.Join(lines, "\n")),
		}
	}
	// Findings that did not deny still matter to whoever reads the test
	// report, and system-out is where reporters show free text.
	var out []string
	for _, f := range r.Violations {
		if f.Enforcement != v1alpha1.Deny {
			out = append(out, junitFindingLine(r, f))
		}
	}
	for _, w := range r.Warnings {
		out = append(out, "Warning: "+w)
	}
	if len(out) > 0 {
		tc.SystemOut = &junitText{Text: xmlSafe(strings.Join(out, "\n"))}
	}
	return tc
}

// junitFindingLine is one finding of a test case's text, as the text
// output prints it: its own "file:line:column: " when it has a position,
// so that each item of the list names its line, and the [policy/rule] of a
// GuardPolicy finding, so that the reader knows whom to ask.
func junitFindingLine(r *Result, f Finding) string {
	if loc := findingLocation(r, f); loc != "" {
		return loc + ": " + findingLine(f, true)
	}
	return findingLine(f, true)
}

// xmlSafe replaces the characters XML 1.0 cannot carry at all, which
// encoding/xml passes through unchanged in CDATA. Messages quote user input,
// and one stray control character would make the whole report unparseable.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		default:
			return '\uFFFD'
		}
	}, s)
}

// junitCaseName tells apart the test cases of one file (the classname) by
// document, or by line when the file is not a YAML stream.
func junitCaseName(r *Result) string {
	var where string
	switch {
	case !r.NotStream:
		where = "document " + strconv.Itoa(r.Document+1)
		if r.Item != nil {
			where += " items[" + strconv.Itoa(*r.Item) + "]"
		}
	case r.Line > 0:
		where = "line " + strconv.Itoa(r.Line)
	}
	switch {
	case r.Kind == "" && r.Name == "" && where == "":
		return r.Source
	case r.Kind == "" && r.Name == "":
		return where
	case where == "":
		return r.ObjectRef()
	}
	return r.ObjectRef() + " (" + where + ")"
}
