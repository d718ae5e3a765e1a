package report

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// TestWriterMatchesWrite checks that a report streamed through a Writer is
// byte for byte the one Write renders from New, in every format, and that
// Close returns New's summary.
func TestWriterMatchesWrite(t *testing.T) {
	for _, results := range [][]Result{sampleResults(), nil} {
		rep := New(results)
		for _, f := range Formats() {
			opts := Options{ToolVersion: "v0.3.0"}
			var streamed bytes.Buffer
			w, err := NewWriter(&streamed, f, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range results {
				if err := w.Add(r); err != nil {
					t.Fatalf("%s: Add: %v", f, err)
				}
			}
			summary, err := w.Close()
			if err != nil {
				t.Fatalf("%s: Close: %v", f, err)
			}
			if summary != rep.Summary {
				t.Errorf("%s: summary %+v, want %+v", f, summary, rep.Summary)
			}
			if want := render(t, f, rep, opts); !bytes.Equal(streamed.Bytes(), want) {
				t.Errorf("%s with %d results: streamed output differs from Write's:\n%s\nwant:\n%s", f, len(results), streamed.Bytes(), want)
			}
		}
	}
}

// countingWriter records how much was written to it.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

// TestWriterStreams checks that the formats whose layout allows it write
// results before Close: output that waits for the end holds the whole run
// in memory.
func TestWriterStreams(t *testing.T) {
	for _, tc := range []struct {
		format  Format
		streams bool
	}{
		{Text, true},
		{JSON, true},
		{SARIF, true},
		// Counts come first: these keep rendered test cases, or the
		// objects with findings, until Close.
		{JUnit, false},
		{Markdown, false},
	} {
		var out countingWriter
		w, err := NewWriter(&out, tc.format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2000 {
			r := Result{Source: fmt.Sprintf("objects/%d.yaml", i), Line: 1, APIVersion: "example.com/v1", Kind: "Widget", Name: fmt.Sprintf("w%d", i)}
			if i%10 == 0 {
				r.Violations = []Finding{{Field: "spec.size", Type: "FieldValueInvalid", Message: "Invalid value: 9", Policy: "schema", Rule: "validation", Enforcement: v1alpha1.Deny, Line: 3, Column: 3}}
			}
			if err := w.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		before := out.n
		summary, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if summary != (Summary{Objects: 2000, Allowed: 1800, Denied: 200}) {
			t.Errorf("%s: summary %+v", tc.format, summary)
		}
		if streamed := before > out.n/2; streamed != tc.streams {
			t.Errorf("%s: %d of %d bytes written before Close; want streaming %v", tc.format, before, out.n, tc.streams)
		}
	}
}
