package report

import (
	"bytes"
	"fmt"
	"strings"
)

// markdownWriter renders the report for a pull request comment: the
// summary first, then one table per object with something to say. Objects
// that are allowed without findings and skipped objects are only counted: a
// review comment that lists every clean object buries the few that matter.
// Because the summary comes first, the objects with something to say are
// rendered as they are added and kept until it is known; clean objects cost
// nothing.
type markdownWriter struct {
	command string
	objects bytes.Buffer
}

func (m *markdownWriter) result(_ *bytes.Buffer, r *Result) error {
	if worthReporting(r) {
		m.objects.WriteString("\n")
		writeMarkdownResult(&m.objects, r)
	}
	return nil
}

func (m *markdownWriter) end(w *bytes.Buffer, s Summary) error {
	icon := "✅"
	if s.Denied > 0 || s.Errors > 0 {
		icon = "❌"
	}
	fmt.Fprintf(w, "### %s crdguard %s: %s\n", icon, m.command, countsLine(s))
	_, err := w.Write(m.objects.Bytes())
	return err
}

func writeMarkdownResult(buf *bytes.Buffer, r *Result) {
	verdict := "✅"
	switch r.outcome() {
	case outcomeError, outcomeDenied:
		verdict = "❌"
	}
	title := r.ObjectRef()
	if r.Operation != "" {
		title += " (" + r.Operation + ")"
	}
	fmt.Fprintf(buf, "#### %s %s — %s\n\n", verdict, markdownText(title), markdownCode(textLocation(r)))
	if r.Error != "" {
		buf.WriteString("**Error:** " + markdownText(r.Error) + "\n")
		return
	}
	if len(r.Violations) > 0 {
		buf.WriteString("| Enforcement | Rule | Field | Message |\n|---|---|---|---|\n")
		for _, f := range r.Violations {
			fmt.Fprintf(buf, "| %s | %s | %s | %s |\n", markdownText(string(f.Enforcement)), markdownCode(f.RuleID()), markdownCode(f.Field), markdownText(f.Message))
		}
	}
	for _, w := range r.Warnings {
		buf.WriteString("\n> ⚠️ " + markdownText(w) + "\n")
	}
}

// markdownText escapes what would end a table cell or start markup, and
// quotes what a renderer would act on (printable). Line breaks become
// spaces, first: a table row is one line.
func markdownText(s string) string {
	return markdownEscaper.Replace(printable(oneLine.Replace(s)))
}

var (
	markdownEscaper = strings.NewReplacer(
		"\\", "\\\\", "|", "\\|", "*", "\\*", "_", "\\_", "`", "\\`", "<", "&lt;", ">", "&gt;", "[", "\\[", "]", "\\]", "~", "\\~",
	)
	oneLine = strings.NewReplacer("\r\n", " ", "\n", " ")
)

// markdownCode renders s as inline code, quoting what a renderer would act
// on (printable). Backslashes do not escape inside code spans, so a backtick
// in s is matched with a longer fence; "|" still ends a table cell and is
// escaped (GitHub's tables unescape it in code).
func markdownCode(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(printable(oneLine.Replace(s)), "|", "\\|")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
