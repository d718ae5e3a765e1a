package report

import (
	"bytes"
	"fmt"
	"strings"
)

// writeMarkdown renders the report for a pull request comment: the summary
// first, then one table per object with something to say. Objects that are
// allowed without findings and skipped objects are only counted: a review
// comment that lists every clean object buries the few that matter.
func writeMarkdown(buf *bytes.Buffer, rep Report, command string) {
	s := rep.Summary
	icon := "✅"
	if s.Denied > 0 || s.Errors > 0 {
		icon = "❌"
	}
	fmt.Fprintf(buf, "### %s crdguard %s: %s: %d allowed, %d denied, %d skipped, %s\n",
		icon, command, plural(s.Objects, "object"), s.Allowed, s.Denied, s.Skipped, plural(s.Errors, "error"))
	for i := range rep.Results {
		r := &rep.Results[i]
		if !worthReporting(r) {
			continue
		}
		buf.WriteString("\n")
		writeMarkdownResult(buf, r)
	}
}

func writeMarkdownResult(buf *bytes.Buffer, r *Result) {
	verdict := "✅"
	switch r.outcome() {
	case outcomeError, outcomeDenied:
		verdict = "❌"
	}
	title := objectRef(r)
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
