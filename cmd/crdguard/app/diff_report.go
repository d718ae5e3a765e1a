package app

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema/diff"
)

// diffReport is a diff run as its text and markdown show it: the CRDs of
// both sides, then the replayed objects, located relative to the arguments
// they were read from. JSON, SARIF and JUnit render the report.Report
// instead, whose sources are the paths as read.
type diffReport struct {
	oldArg, newArg string
	objectArgs     []string
	// crds has one result per CRD name (diffResults), objects one per
	// replayed document; both decided by report.New.
	crds, objects []report.Result
	// minSeverity is the lowest severity whose CRD findings are listed
	// (--min-severity); the counts always include every finding.
	minSeverity diff.Impact
}

// severityCounts counts findings by the severity the run gives them.
type severityCounts struct{ breaking, warnings, info int }

func (c *severityCounts) add(o severityCounts) {
	c.breaking += o.breaking
	c.warnings += o.warnings
	c.info += o.info
}

func (c severityCounts) String() string {
	return fmt.Sprintf("%d breaking, %s, %d info", c.breaking, plural(c.warnings, "warning"), c.info)
}

func countSeverities(findings []report.Finding) severityCounts {
	var c severityCounts
	for _, f := range findings {
		switch severity(f) {
		case diff.Breaking:
			c.breaking++
		case diff.Warning:
			c.warnings++
		default:
			c.info++
		}
	}
	return c
}

// severity is what the run makes of a finding: breaking fails it (Deny),
// a warning is Warn, info is Audit. It is the change's impact unless the
// config or a waiver set another enforcement.
func severity(f report.Finding) diff.Impact {
	switch f.Enforcement {
	case v1alpha1.Deny:
		return diff.Breaking
	case v1alpha1.Warn:
		return diff.Warning
	}
	return diff.Info
}

// severityLabel is a finding's severity, and the change's impact when the
// enforcement differs from it ("info (breaking impact)" for a waived
// removal), so that a configured or waived change still shows what it is.
func severityLabel(f report.Finding) string {
	s := severity(f)
	if f.Policy == diffPolicy && f.Type != string(s) {
		return string(s) + " (" + f.Type + " impact)"
	}
	return string(s)
}

// shown is a CRD's findings at minSeverity or above, breaking first.
func (d *diffReport) shown(findings []report.Finding) []report.Finding {
	out := bySeverity(findings)
	for i, f := range out {
		if impactRank[severity(f)] > impactRank[d.minSeverity] {
			return out[:i]
		}
	}
	return out
}

// impactRank orders severities, breaking first; an unset minimum ranks
// as info.
var impactRank = map[diff.Impact]int{diff.Breaking: 0, diff.Warning: 1, diff.Info: 2, "": 2}

// bySeverity orders findings breaking first, keeping the checks' order
// within a severity, so that a capped list cuts infos first.
func bySeverity(findings []report.Finding) []report.Finding {
	out := slices.Clone(findings)
	slices.SortStableFunc(out, func(a, b report.Finding) int { return impactRank[severity(a)] - impactRank[severity(b)] })
	return out
}

// crdChange says what happened to a CRD between the sides.
func crdChange(r *report.Result) string {
	switch {
	case r.Operation == "DELETE":
		return "removed"
	case r.Operation == "CREATE":
		return "added"
	case len(r.Violations) == 0:
		return "unchanged"
	}
	return "changed"
}

// crdLocation is where a CRD result points, relative to its side: NEW,
// or OLD for a removed CRD, which says so.
func (d *diffReport) crdLocation(r *report.Result, line int) string {
	if r.Operation == "DELETE" {
		return fmt.Sprintf("OLD %s:%d", relativeTo(r.Source, d.oldArg), line)
	}
	return fmt.Sprintf("%s:%d", relativeTo(r.Source, d.newArg), line)
}

// objectLocation is where a replayed object is, relative to the --objects
// argument it was read from.
func (d *diffReport) objectLocation(r *report.Result) string {
	return fmt.Sprintf("%s:%d", relativeTo(r.Source, d.objectArgs...), r.Line)
}

// relativeTo is source relative to the argument among args it was read
// from: a directory's entry ("sub/x.yaml"), a file's own name, a git:REF:PATH
// tree's path below PATH; source itself when no argument holds it.
func relativeTo(source string, args ...string) string {
	for _, arg := range args {
		if source == arg {
			if src, ok := parseGitSource(arg); ok {
				return src.base()
			}
			if arg == "-" {
				return arg
			}
			return filepath.Base(arg)
		}
		if rest, ok := strings.CutPrefix(source, sourcePrefix(arg)); ok {
			return rest
		}
	}
	return source
}

// sourcePrefix is what the sources read from a directory argument start
// with: manifest.Expand joins the entries to the cleaned path, readGit
// names a tree's entries with gitSource.entry.
func sourcePrefix(arg string) string {
	if src, ok := parseGitSource(arg); ok {
		return src.entry("").String()
	}
	if clean := filepath.Clean(arg); clean != "." {
		return clean + string(filepath.Separator)
	}
	return ""
}

// crdTotals counts the CRDs by what happened to them and their findings.
type crdTotals struct {
	counts                                severityCounts
	added, removed, changed, unchanged, n int
}

func (d *diffReport) crdTotals() crdTotals {
	var t crdTotals
	for i := range d.crds {
		r := &d.crds[i]
		t.n++
		t.counts.add(countSeverities(r.Violations))
		switch crdChange(r) {
		case "added":
			t.added++
		case "removed":
			t.removed++
		case "changed":
			t.changed++
		default:
			t.unchanged++
		}
	}
	return t
}

func (t crdTotals) String() string {
	return fmt.Sprintf("%s (%d added, %d removed, %d changed, %d unchanged)",
		plural(t.n, "CRD"), t.added, t.removed, t.changed, t.unchanged)
}

// objectTotals counts the replayed objects by outcome and their findings.
type objectTotals struct {
	counts                         severityCounts
	broken, skipped, unreadable, n int
}

func (d *diffReport) objectTotals() objectTotals {
	var t objectTotals
	for i := range d.objects {
		r := &d.objects[i]
		t.n++
		t.counts.add(countSeverities(r.Violations))
		switch {
		case r.Error != "":
			t.unreadable++
		case r.Skipped:
			t.skipped++
		case !r.Allowed:
			t.broken++
		}
	}
	return t
}

func (t objectTotals) String() string {
	return fmt.Sprintf("%s replayed (%d broken, %d skipped, %d unreadable)",
		plural(t.n, "stored object"), t.broken, t.skipped, t.unreadable)
}

// totals is the run's findings, CRDs and objects together, and what they
// were found in: "3 breaking, 0 warnings, 1 info in 2 CRDs (...)".
func (d *diffReport) totals() (severityCounts, string) {
	crds := d.crdTotals()
	counts, scope := crds.counts, crds.String()
	if d.objectArgs != nil {
		objects := d.objectTotals()
		counts.add(objects.counts)
		scope += " and " + objects.String()
	}
	return counts, scope
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
