package report

import (
	"bytes"
	"fmt"
)

// maxDiffMarkdownFindings caps the findings listed per CRD or object in the
// markdown: a pull request comment stays readable (and under GitHub's
// 65536-character limit for a few dozen CRDs) when an upgrade rewrites
// hundreds of descriptions. Breaking findings come first, so the cap cuts
// infos first; the rest is counted, and -o json lists everything.
const maxDiffMarkdownFindings = 50

// diffMarkdownWriter renders a diff run for a pull request comment: the
// totals and a table of the CRDs with findings first, then each CRD's
// findings collapsed in <details>, then the replayed objects. The totals
// come first, so it keeps the results until the end.
type diffMarkdownWriter struct {
	layout  *DiffLayout
	results []Result
}

func (m *diffMarkdownWriter) result(_ *bytes.Buffer, r *Result) error {
	m.results = append(m.results, *r)
	return nil
}

func (m *diffMarkdownWriter) end(buf *bytes.Buffer, _ Summary) error {
	d := newDiffRun(m.layout, m.results)
	counts, scope := d.totals()
	icon := "✅"
	switch {
	case counts.breaking > 0 || d.objectTotals().unreadable > 0:
		icon = "❌"
	case counts.warnings > 0:
		icon = "⚠️"
	}
	fmt.Fprintf(buf, "### %s crdguard diff: %s\n\n", icon, counts)
	fmt.Fprintf(buf, "%s → %s: %s\n", markdownCode(d.Old.Arg), markdownCode(d.New.Arg), markdownText(scope))

	var changed []*Result
	for i := range d.crds {
		if len(d.crds[i].Violations) > 0 {
			changed = append(changed, &d.crds[i])
		}
	}
	if len(changed) > 0 {
		buf.WriteString("\n| CRD | change | breaking | warnings | info |\n|---|---|--:|--:|--:|\n")
		for _, r := range changed {
			c := countSeverities(r.Violations)
			fmt.Fprintf(buf, "| %s | %s | %d | %d | %d |\n", markdownCode(r.Name), crdChange(r), c.breaking, c.warnings, c.info)
		}
	}
	for _, r := range changed {
		shown := d.shown(r.Violations)
		if len(shown) == 0 {
			continue // --min-severity hides them all; the table counts them
		}
		fmt.Fprintf(buf, "\n<details><summary><code>%s</code> %s: %s</summary>\n\n", r.Name, crdChange(r), countSeverities(r.Violations))
		buf.WriteString("| severity | check | field | change | at |\n|---|---|---|---|---|\n")
		for _, f := range capped(shown) {
			line := f.Line
			if line == 0 {
				line = r.Line
			}
			fmt.Fprintf(buf, "| %s | %s | %s | %s | %s |\n", crdSeverityLabel(f), markdownCode(f.Rule), markdownCode(d.shortPath(f.Field)),
				markdownText(f.Message), markdownCode(d.crdLocation(r, line)))
		}
		writeMore(buf, shown)
		buf.WriteString("\n</details>\n")
	}
	if d.Objects != nil {
		writeReplayMarkdown(buf, d)
	}
	return nil
}

// writeReplayMarkdown lists the replayed objects the new CRDs break, or
// that could not be read; skipped and unaffected ones are only counted.
func writeReplayMarkdown(buf *bytes.Buffer, d *diffRun) {
	fmt.Fprintf(buf, "\n#### Stored objects replayed against NEW: %s\n", markdownText(d.objectTotals().String()))
	var listed []*Result
	for i := range d.objects {
		if r := &d.objects[i]; r.Error != "" || len(r.Violations) > 0 {
			listed = append(listed, r)
		}
	}
	if len(listed) == 0 {
		return
	}
	buf.WriteString("\n| object | at | result |\n|---|---|---|\n")
	for _, r := range listed {
		result := fmt.Sprintf("%d breaking", countSeverities(r.Violations).breaking)
		if r.Error != "" {
			result = "unreadable: " + r.Error
		}
		fmt.Fprintf(buf, "| %s | %s | %s |\n", markdownText(r.ObjectRef()), markdownCode(d.objectLocation(r)), markdownText(result))
	}
	for _, r := range listed {
		if len(r.Violations) == 0 {
			continue
		}
		fmt.Fprintf(buf, "\n<details><summary>%s: %d breaking</summary>\n\n", markdownText(r.ObjectRef()), countSeverities(r.Violations).breaking)
		buf.WriteString("| severity | field | next write |\n|---|---|---|\n")
		for _, f := range capped(r.Violations) {
			fmt.Fprintf(buf, "| %s | %s | %s |\n", severity(f), markdownCode(f.Field), markdownText(f.Message))
		}
		writeMore(buf, r.Violations)
		buf.WriteString("\n</details>\n")
	}
}

// capped is the findings a markdown table lists.
func capped(findings []Finding) []Finding {
	return findings[:min(len(findings), maxDiffMarkdownFindings)]
}

// writeMore counts, by severity, the findings past the cap.
func writeMore(buf *bytes.Buffer, findings []Finding) {
	if len(findings) <= maxDiffMarkdownFindings {
		return
	}
	rest := findings[maxDiffMarkdownFindings:]
	fmt.Fprintf(buf, "\n… and %d more (%s): `crdguard diff -o json` lists every one.\n", len(rest), countSeverities(rest))
}
