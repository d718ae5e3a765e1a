package report

import (
	"bytes"
	"fmt"
)

// diffTextWriter renders a diff run for people: the two sides, one block
// per CRD with its counts and a line per finding, severity first, then the
// replayed objects and the totals. Paths are relative to the arguments
// printed on top, and a finding's path is its place in the object
// (DiffLayout.ShortPath) rather than in the CRD, so that the lines stay
// short and read alike on every machine. It keeps the results until the
// end, which a diff's one result per CRD and replayed document allows.
type diffTextWriter struct {
	layout  *DiffLayout
	quiet   bool
	results []Result
}

func (t *diffTextWriter) result(_ *bytes.Buffer, r *Result) error {
	t.results = append(t.results, *r)
	return nil
}

func (t *diffTextWriter) end(buf *bytes.Buffer, _ Summary) error {
	d := newDiffRun(t.layout, t.results)
	fmt.Fprintf(buf, "--- OLD %s\n+++ NEW %s\n", d.Old.Arg, d.New.Arg)
	for i := range d.crds {
		r := &d.crds[i]
		shown := d.shown(r.Violations)
		if t.quiet && len(shown) == 0 {
			continue
		}
		fmt.Fprintf(buf, "%s %s (%s): %s\n", r.Name, crdChange(r), d.crdLocation(r, r.Line), countSeverities(r.Violations))
		for _, f := range shown {
			line := f.Line
			if line == 0 {
				line = r.Line
			}
			fmt.Fprintf(buf, "  %-8s %s %s %s: %s\n", crdSeverityLabel(f), d.crdLocation(r, line), f.Rule, d.shortPath(f.Field), f.Message)
		}
	}
	if d.Objects != nil {
		writeReplayText(buf, d, t.quiet)
	}
	counts, scope := d.totals()
	fmt.Fprintf(buf, "total: %s in %s\n", counts, scope)
	return nil
}

// writeReplayText lists the replayed objects: what each next write of them
// does under the new CRDs.
func writeReplayText(buf *bytes.Buffer, d *diffRun, quiet bool) {
	buf.WriteString("stored objects replayed against NEW:\n")
	for i := range d.objects {
		r := &d.objects[i]
		switch {
		case r.Error != "":
			fmt.Fprintf(buf, "%s (document %d): unreadable: %s\n", d.objectLocation(r), r.Document+1, r.Error)
			continue
		case quiet && len(r.Violations) == 0:
			// A skipped result with a finding (a kind diff could not
			// list) stays: it is why the replay is incomplete.
			continue
		case r.Skipped:
			fmt.Fprintf(buf, "%s (%s): not replayed: %s\n", r.ObjectRef(), d.objectLocation(r), r.SkipReason)
			continue
		}
		fmt.Fprintf(buf, "%s (%s): %d breaking\n", r.ObjectRef(), d.objectLocation(r), countSeverities(r.Violations).breaking)
		for _, f := range r.Violations {
			fmt.Fprintf(buf, "  %-8s %s: %s\n", severity(f), f.Field, f.Message)
		}
	}
}
