package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// DiffLayout has a report's text and markdown speak of a crdguard diff
// run: the two sides, one block per CRD with its changes, then the
// replayed objects, located relative to the arguments they were read from.
// JSON, SARIF and JUnit ignore it and render the results as they are.
type DiffLayout struct {
	// Old and New are the sides' arguments.
	Old, New Origin
	// Objects are the --objects arguments, nil when the run replayed no
	// objects.
	Objects []Origin
	// CRDs is how many of the report's results, the first ones, are CRDs,
	// one per name; the rest are replayed objects.
	CRDs int
	// MinEnforcement is the weakest enforcement whose CRD findings are
	// listed (--min-severity); the counts always include every finding.
	// Empty lists every finding.
	MinEnforcement v1alpha1.Enforcement
	// ShortPath names the node of a CRD finding as text and markdown show
	// it, its place in the object rather than in the CRD; nil shows the
	// field as it is.
	ShortPath func(field string) string
}

// Origin is an argument documents were read from, and how the sources of
// those documents are named relative to it.
type Origin struct {
	// Arg is the argument as given.
	Arg string
	// Name is what a source equal to Arg shows: a file's own name.
	Name string
	// EntryPrefix is what the sources of the files read from Arg, a
	// directory or a tree, start with; empty for the current directory.
	EntryPrefix string
}

// Relative names source relative to o: a directory's entry ("sub/x.yaml"),
// a file's own name. It reports false for a source not read from o.
func (o Origin) Relative(source string) (string, bool) {
	if source == o.Arg {
		return o.Name, true
	}
	return strings.CutPrefix(source, o.EntryPrefix)
}

// relativeTo is source relative to the first of origins it was read from,
// source itself when none holds it.
func relativeTo(source string, origins ...Origin) string {
	for _, o := range origins {
		if rel, ok := o.Relative(source); ok {
			return rel
		}
	}
	return source
}

// diffRun is a diff report's results as its text and markdown show them.
type diffRun struct {
	*DiffLayout
	// crds has one result per CRD name, objects one per replayed document.
	crds, objects []Result
}

// newDiffRun splits results, the CRDs' first.
func newDiffRun(layout *DiffLayout, results []Result) *diffRun {
	n := min(layout.CRDs, len(results))
	return &diffRun{DiffLayout: layout, crds: results[:n], objects: results[n:]}
}

// Severities of diff findings as text and markdown print them.
const (
	diffBreaking = "breaking"
	diffWarning  = "warning"
	diffInfo     = "info"
)

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

func countSeverities(findings []Finding) severityCounts {
	var c severityCounts
	for _, f := range findings {
		switch f.Enforcement {
		case v1alpha1.Deny:
			c.breaking++
		case v1alpha1.Warn:
			c.warnings++
		default:
			c.info++
		}
	}
	return c
}

// severity is what the run makes of a finding: Deny is breaking (it fails
// the run), Warn a warning, Audit info. It is the change's impact unless
// the config or a waiver set another enforcement.
func severity(f Finding) string {
	switch f.Enforcement {
	case v1alpha1.Deny:
		return diffBreaking
	case v1alpha1.Warn:
		return diffWarning
	}
	return diffInfo
}

// crdSeverityLabel is a CRD finding's severity, and the change's impact
// (the finding's type) when the enforcement differs from it ("info
// (breaking impact)" for a waived removal), so that a configured or waived
// change still shows what it is.
func crdSeverityLabel(f Finding) string {
	if s := severity(f); f.Type != s {
		return s + " (" + f.Type + " impact)"
	}
	return severity(f)
}

// enforcementRank orders enforcements, Deny first; an unset minimum ranks
// as Audit.
var enforcementRank = map[v1alpha1.Enforcement]int{v1alpha1.Deny: 0, v1alpha1.Warn: 1, v1alpha1.Audit: 2, "": 2}

// rank is a finding's place in enforcementRank: Audit for anything not Deny
// or Warn, as severity counts it.
func rank(f Finding) int {
	if r, ok := enforcementRank[f.Enforcement]; ok {
		return r
	}
	return enforcementRank[v1alpha1.Audit]
}

// shown is a CRD's findings at MinEnforcement or above, breaking first.
func (d *diffRun) shown(findings []Finding) []Finding {
	out := bySeverity(findings)
	for i, f := range out {
		if rank(f) > enforcementRank[d.MinEnforcement] {
			return out[:i]
		}
	}
	return out
}

// bySeverity orders findings breaking first, keeping the checks' order
// within a severity, so that a capped list cuts infos first.
func bySeverity(findings []Finding) []Finding {
	out := slices.Clone(findings)
	slices.SortStableFunc(out, func(a, b Finding) int { return rank(a) - rank(b) })
	return out
}

// shortPath is a CRD finding's field as text and markdown name it.
func (d *diffRun) shortPath(field string) string {
	if d.ShortPath == nil {
		return field
	}
	return d.ShortPath(field)
}

// crdChange says what happened to a CRD between the sides.
func crdChange(r *Result) string {
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
func (d *diffRun) crdLocation(r *Result, line int) string {
	if r.Operation == "DELETE" {
		return "OLD " + atLine(relativeTo(r.Source, d.Old), line)
	}
	return atLine(relativeTo(r.Source, d.New), line)
}

// objectLocation is where a replayed object is, relative to the --objects
// argument it was read from.
func (d *diffRun) objectLocation(r *Result) string {
	return atLine(relativeTo(r.Source, d.Objects...), r.Line)
}

// atLine is source:line, or source alone for what has no line: a CRD or
// an object read from a cluster.
func atLine(source string, line int) string {
	if line == 0 {
		return source
	}
	return fmt.Sprintf("%s:%d", source, line)
}

// crdTotals counts the CRDs by what happened to them and their findings.
type crdTotals struct {
	counts                                severityCounts
	added, removed, changed, unchanged, n int
}

func (d *diffRun) crdTotals() crdTotals {
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

func (d *diffRun) objectTotals() objectTotals {
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
func (d *diffRun) totals() (severityCounts, string) {
	crds := d.crdTotals()
	counts, scope := crds.counts, crds.String()
	if d.Objects != nil {
		objects := d.objectTotals()
		counts.add(objects.counts)
		scope += " and " + objects.String()
	}
	return counts, scope
}
