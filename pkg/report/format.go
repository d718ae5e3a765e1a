package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// Format is an output format for a Report. It implements the pflag.Value
// interface (String, Set, Type) so that a command can bind it to a flag
// directly.
type Format string

// The values are the names users pass on the command line.
const (
	Text  Format = "text"
	JSON  Format = "json"
	SARIF Format = "sarif"
	JUnit Format = "junit"
	// Markdown is meant for pull request comments.
	Markdown Format = "markdown"
)

// Formats lists the supported formats in the order help text should show
// them.
func Formats() []Format {
	return []Format{Text, JSON, SARIF, JUnit, Markdown}
}

// ParseFormat accepts a format name in any letter case, because users type
// "-o JSON" as often as "-o json".
func ParseFormat(s string) (Format, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for _, f := range Formats() {
		if name == string(f) {
			return f, nil
		}
	}
	return "", unknownFormat(s)
}

func unknownFormat(s string) error {
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return fmt.Errorf("unknown output format %q: valid formats are %s", s, strings.Join(names, ", "))
}

func (f Format) String() string { return string(f) }

// Set parses s into f.
func (f *Format) Set(s string) error {
	parsed, err := ParseFormat(s)
	if err != nil {
		return err
	}
	*f = parsed
	return nil
}

// Type names the flag's value type in help text.
func (f *Format) Type() string { return "format" }

// Options holds the settings that only some formats use; the zero value is
// a sensible default for all of them.
type Options struct {
	// Quiet leaves out of the text output the objects there is nothing to
	// say about: allowed objects without findings or warnings, and skipped
	// objects (for lint: kinds without findings). The summary line still
	// counts them.
	Quiet bool
	// ToolVersion is the crdguard version recorded in SARIF, where code
	// scanning services use it to tell runs of different releases apart.
	ToolVersion string
	// Command is the crdguard subcommand that produced the report
	// ("validate", "diff", "lint"); it names the JUnit test suite, and
	// "lint" has the text speak of Go places, kinds and severities rather
	// than of allowed and denied objects. Empty means "validate".
	Command string
	// Diff, set by crdguard diff, has text and markdown speak of CRD
	// changes and replayed objects rather than of allowed and denied
	// objects.
	Diff *DiffLayout
}

// command is Command with its default.
func (o Options) command() string {
	if o.Command == "" {
		return "validate"
	}
	return o.Command
}

// Write renders rep in format f. rep should come from New: the writers
// trust its Summary and each result's Allowed rather than recompute them, so
// that all formats report the same numbers. The output is built in memory
// and written with a single call, so a failing writer never leaves half a
// JSON or XML document behind that a consumer might mistake for a whole one;
// NewWriter is for output too large to hold.
func Write(w io.Writer, f Format, rep Report, opts Options) error {
	var buf bytes.Buffer
	rw, err := NewWriter(&buf, f, opts)
	if err != nil {
		return err
	}
	for i := range rep.Results {
		r := rep.Results[i]
		normalize(&r)
		if err := rw.add(&r); err != nil {
			return err
		}
	}
	if err := rw.finish(rep.Summary); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}
