package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// textWriter renders the report the way kubectl reports a rejected apply,
// so that people who know kubectl's errors can read it without learning a
// new layout, and so that editors can jump to "file:line" prefixes. Each
// result is written as it is added and the summary line last. Everything
// that comes from the input passes through printable, so that an object
// cannot drive the terminal that shows the report.
type textWriter struct {
	quiet bool
}

func (t *textWriter) result(w *bytes.Buffer, r *Result) error {
	if t.quiet && !worthReporting(r) {
		return nil
	}
	writeTextResult(w, r)
	return nil
}

func (t *textWriter) end(w *bytes.Buffer, s Summary) error {
	_, err := fmt.Fprintln(w, countsLine(s))
	return err
}

// countsLine is the summary of text and markdown: "3 objects: 1 allowed,
// 1 denied, 1 skipped, 0 errors". A file or document that could not be
// read is no object, and is counted apart: "2 objects and 1 unreadable
// input: ..., 1 error".
func countsLine(s Summary) string {
	counted := plural(s.Objects, "object")
	if s.Unreadable > 0 {
		counted = plural(s.Objects-s.Unreadable, "object") + " and " + plural(s.Unreadable, "unreadable input")
	}
	return fmt.Sprintf("%s: %d allowed, %d denied, %d skipped, %s", counted, s.Allowed, s.Denied, s.Skipped, plural(s.Errors, "error"))
}

// worthReporting says whether quiet mode keeps a result. Skipped objects are
// left out because in a real repository most skips are core kinds crdguard
// has no schema for, and listing them would bury the problems.
func worthReporting(r *Result) bool {
	switch r.outcome() {
	case outcomeError, outcomeDenied:
		return true
	case outcomeAllowed:
		return len(r.Violations) > 0 || len(r.Warnings) > 0
	default:
		return false
	}
}

func writeTextResult(buf *bytes.Buffer, r *Result) {
	buf.WriteString(printable(textLocation(r)))
	buf.WriteString(": ")
	hasDetails := len(r.Violations) > 0 || len(r.Warnings) > 0 || len(r.Patches) > 0 || r.Stored != nil
	switch r.outcome() {
	case outcomeError:
		buf.WriteString("error: " + printable(r.Error))
	case outcomeSkipped:
		buf.WriteString(printable(r.ObjectRef()) + " skipped")
		if r.SkipReason != "" {
			buf.WriteString(": " + printable(r.SkipReason))
		}
	default:
		verdict := " is valid"
		if r.outcome() == outcomeDenied {
			verdict = " is invalid"
		}
		buf.WriteString(printable(r.ObjectRef()) + verdict)
		if r.Operation != "" {
			buf.WriteString(" (" + printable(r.Operation) + ")")
		}
		// The colon announces the list below, as kubectl's does.
		if hasDetails {
			buf.WriteString(":")
		}
	}
	buf.WriteString("\n")
	for _, f := range r.Violations {
		buf.WriteString("  * ")
		// "file:line: " first, as compilers print it, so that editors
		// and terminals jump to the node; only when the finding has its
		// own line, the document's being in the heading already.
		if loc := findingLocation(r, f); loc != "" {
			buf.WriteString(printable(loc) + ": ")
		}
		buf.WriteString(printable(findingLine(f, true)) + "\n")
	}
	for _, w := range r.Warnings {
		buf.WriteString("  Warning: " + printable(w) + "\n")
	}
	for _, p := range r.Patches {
		value, _ := json.Marshal(p.Value)
		fmt.Fprintf(buf, "  Patch: %s %s %s\n", printable(p.Op), printable(p.Path), printable(string(value)))
	}
	writeStored(buf, r.Stored)
}

// writeStored writes the stored object as the YAML document kubectl's
// "-o yaml" prints, indented under the result.
func writeStored(buf *bytes.Buffer, stored map[string]any) {
	if stored == nil {
		return
	}
	data, err := yaml.Marshal(stored)
	if err != nil {
		// A decoded object always marshals; say so if one does not.
		data = []byte("# cannot show it: " + err.Error() + "\n")
	}
	buf.WriteString("  Stored:\n")
	for line := range strings.Lines(string(data)) {
		buf.WriteString("    " + printable(strings.TrimSuffix(line, "\n")) + "\n")
	}
}

// findingLocation is "file:line:column" of a finding that has its own
// position ("file:line" without a column), "" for one that has none.
func findingLocation(r *Result, f Finding) string {
	if f.Line <= 0 {
		return ""
	}
	loc := r.Source + ":" + strconv.Itoa(f.Line)
	if f.Column > 0 {
		loc += ":" + strconv.Itoa(f.Column)
	}
	return loc
}

// textLocation leaves the line out when it is unknown (0) rather than print
// a "file:0" that editors would take at face value, and the document when
// the source is not a YAML stream.
func textLocation(r *Result) string {
	loc := r.Source
	if r.Line > 0 {
		loc += ":" + strconv.Itoa(r.Line)
	}
	if r.NotStream {
		return loc
	}
	if r.Item != nil {
		return loc + " (document " + strconv.Itoa(r.Document+1) + ", items[" + strconv.Itoa(*r.Item) + "])"
	}
	return loc + " (document " + strconv.Itoa(r.Document+1) + ")"
}

// ObjectRef names the result's object the way kubectl does: "Kind
// ns/name", or "Kind name" for cluster-scoped objects. Documents that
// failed early may lack a name or even a kind, so it degrades to what is
// known. Every renderer, crdguard diff's own and crdguard test name
// objects by it.
func (r *Result) ObjectRef() string {
	kind := r.Kind
	if kind == "" {
		kind = "object"
	}
	switch {
	case r.Name == "":
		return kind
	case r.Namespace == "":
		return kind + " " + r.Name
	default:
		return kind + " " + r.Namespace + "/" + r.Name
	}
}

// findingLine formats "<field>: <message>". With marks, it prefixes the
// enforcement when it does not deny (a reader would otherwise take every
// line as a rejection) and the policy/rule when a GuardPolicy rather than
// the schema raised it (so the reader knows whom to ask).
func findingLine(f Finding, marks bool) string {
	var prefix string
	if marks {
		if f.Enforcement != v1alpha1.Deny && f.Enforcement != "" {
			prefix += "[" + string(f.Enforcement) + "] "
		}
		if f.Policy != "schema" && f.Policy != "" {
			prefix += "[" + f.RuleID() + "] "
		}
	}
	return prefix + f.Field + ": " + f.Message
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
