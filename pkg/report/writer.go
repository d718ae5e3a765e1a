package report

import (
	"bufio"
	"bytes"
	"io"
)

// Writer renders results one at a time as they complete, so that a run's
// memory does not grow with the number of objects: each format writes a
// result when it is added, and keeps until Close only what its layout puts
// before the results (see each format's writer). Add results in the order
// they should appear.
type Writer struct {
	out    *bufio.Writer
	format formatWriter
	// scratch is where the format renders, so that the writes to out and
	// their errors are in one place.
	scratch bytes.Buffer
	summary Summary
	err     error
}

// formatWriter is one format's half of a Writer.
type formatWriter interface {
	// result renders one result into w; r is decided and its arrays are
	// not nil.
	result(w *bytes.Buffer, r *Result) error
	// end renders what follows the results (or precedes them, for the
	// formats that keep them until the summary is known).
	end(w *bytes.Buffer, s Summary) error
}

// outputBuffer holds several results between writes: with --show-stored
// one result is a whole object, and bufio's default 4 KiB made nearly every
// result its own write call.
const outputBuffer = 64 << 10

// NewWriter starts a report in format f on w. Unlike Write, it writes as it
// goes: a failing w leaves a partial document behind, and an error from Add
// or Close means the output is incomplete.
func NewWriter(w io.Writer, f Format, opts Options) (*Writer, error) {
	out := bufio.NewWriterSize(w, outputBuffer)
	var format formatWriter
	switch f {
	case Text:
		switch {
		case opts.Diff != nil:
			format = &diffTextWriter{layout: opts.Diff, quiet: opts.Quiet}
		case opts.Command == "lint":
			format = &lintTextWriter{quiet: opts.Quiet}
		default:
			format = &textWriter{quiet: opts.Quiet}
		}
	case JSON:
		format = &jsonWriter{}
	case SARIF:
		format = &sarifWriter{toolVersion: opts.ToolVersion}
	case JUnit:
		format = &junitWriter{suiteName: "crdguard " + opts.command()}
	case Markdown:
		format = &markdownWriter{command: opts.command()}
		if opts.Diff != nil {
			format = &diffMarkdownWriter{layout: opts.Diff}
		}
	default:
		return nil, unknownFormat(string(f))
	}
	return &Writer{out: out, format: format}, nil
}

// Add decides r (see Result.Decide), counts it in the summary and renders
// it.
func (w *Writer) Add(r Result) error {
	normalize(&r)
	r.Decide()
	w.summary.add(&r)
	return w.add(&r)
}

// add renders r as it is.
func (w *Writer) add(r *Result) error {
	if w.err == nil {
		w.scratch.Reset()
		w.err = w.format.result(&w.scratch, r)
	}
	if w.err == nil {
		_, w.err = w.out.Write(w.scratch.Bytes())
	}
	return w.err
}

// Close ends the report with the summary of the results added and returns
// that summary.
func (w *Writer) Close() (Summary, error) {
	return w.summary, w.finish(w.summary)
}

func (w *Writer) finish(s Summary) error {
	if w.err == nil {
		w.scratch.Reset()
		w.err = w.format.end(&w.scratch, s)
	}
	if w.err == nil {
		_, w.err = w.out.Write(w.scratch.Bytes())
	}
	if w.err == nil {
		w.err = w.out.Flush()
	}
	return w.err
}

// normalize replaces nil Violations and Warnings with empty slices, so that
// JSON has arrays rather than null.
func normalize(r *Result) {
	if r.Violations == nil {
		r.Violations = []Finding{}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
}

// add counts r in its one bucket (see outcome).
func (s *Summary) add(r *Result) {
	s.Objects++
	switch r.outcome() {
	case outcomeAllowed:
		s.Allowed++
	case outcomeDenied:
		s.Denied++
	case outcomeSkipped:
		s.Skipped++
	case outcomeError:
		s.Errors++
		if r.Kind == "" {
			s.Unreadable++
		}
	}
}
