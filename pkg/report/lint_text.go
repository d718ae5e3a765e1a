package report

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// lintTextWriter renders crdguard lint's report in lint's own words: a Go
// place, compiler style ("file:line: Go name in kinds") so that editors
// jump to it, the findings there with their severity, and a summary that
// counts kinds and findings rather than allowed and denied objects.
//
// The model holds one result per Go line and kind, because a result has one
// kind; a field that several kinds reach (a type shared by every version of
// an API) is one mistake with one fix, so the text reports each check,
// place and message once and names the kinds. It keeps the results until
// the end for that, which a lint run's few hundred results allow.
type lintTextWriter struct {
	quiet   bool
	results []Result
}

func (t *lintTextWriter) result(_ *bytes.Buffer, r *Result) error {
	t.results = append(t.results, *r)
	return nil
}

// lintFinding is one finding as lint prints it: one check's message at one
// Go place, with every kind and JSON path that reaches it.
type lintFinding struct {
	at      *Result
	finding Finding
	kinds   []string
	paths   []string
}

// lintPlace is one heading: a Go place and the kinds its findings reach.
// Findings at one place that reach different kinds get a heading each, so
// that a heading never names a kind a finding below it is not about.
type lintPlace struct {
	at       *Result
	kinds    []string
	findings []*lintFinding
}

func (t *lintTextWriter) end(w *bytes.Buffer, _ Summary) error {
	findingOf := map[string]*lintFinding{}
	var kinds []string
	for i := range t.results {
		r := &t.results[i]
		if r.Error != "" || r.Skipped {
			continue
		}
		kinds = appendNew(kinds, kindRef(r))
		for _, v := range r.Violations {
			key := findingKey(r, v)
			f := findingOf[key]
			if f == nil {
				f = &lintFinding{at: r, finding: v}
				findingOf[key] = f
			}
			f.kinds = appendNew(f.kinds, kindRef(r))
			f.paths = appendNew(f.paths, v.Field)
		}
	}
	// The places in the results' order (by file and line), now that every
	// finding knows its kinds.
	var places []*lintPlace
	placeOf := map[string]*lintPlace{}
	placed := map[*lintFinding]bool{}
	counts := map[v1alpha1.Enforcement]int{}
	for i := range t.results {
		r := &t.results[i]
		if r.Error != "" || r.Skipped {
			// lint produces neither; should one come, it is shown rather
			// than lost.
			places = append(places, &lintPlace{at: r})
			continue
		}
		if len(r.Violations) == 0 && !t.quiet {
			// A kind's declaration, listed as checked.
			places = append(places, &lintPlace{at: r, kinds: []string{kindRef(r)}})
		}
		for _, v := range r.Violations {
			f := findingOf[findingKey(r, v)]
			if placed[f] {
				continue // at its first kind and path
			}
			placed[f] = true
			id := strings.Join([]string{r.Source, strconv.Itoa(r.Line), r.Name, strings.Join(f.kinds, ", ")}, "\x00")
			p := placeOf[id]
			if p == nil {
				p = &lintPlace{at: r, kinds: f.kinds}
				placeOf[id] = p
				places = append(places, p)
			}
			p.findings = append(p.findings, f)
			counts[f.finding.Enforcement]++
		}
	}
	for _, p := range places {
		writeLintPlace(w, p)
	}
	_, err := fmt.Fprintf(w, "%s checked: %s, %s, %s\n", plural(len(kinds), "kind"),
		plural(counts[v1alpha1.Deny], "error"), plural(counts[v1alpha1.Warn], "warning"), plural(counts[v1alpha1.Audit], "info"))
	return err
}

// findingKey is what makes two findings one: the Go place, the check, the
// severity and the message. The JSON path is left out: a Go field reached
// by several paths (a Probe type used for three probes) has one fix.
func findingKey(r *Result, f Finding) string {
	return strings.Join([]string{r.Source, strconv.Itoa(r.Line), r.Name, f.RuleID(), string(f.Enforcement), f.Message}, "\x00")
}

// kindRef names a result's kind as "Kind group/version".
func kindRef(r *Result) string {
	return strings.TrimSpace(r.Kind + " " + r.APIVersion)
}

// writeLintPlace writes a heading and the findings under it:
//
//	api/v1/cluster_types.go:241: ClusterSpec.PostgresUID in Cluster postgresql.cnpg.io/v1
//	  error [zero-value-default] spec.postgresUID: ClusterSpec.PostgresUID drops 0 ...
func writeLintPlace(w *bytes.Buffer, p *lintPlace) {
	r := p.at
	if r.Error != "" || r.Skipped {
		writeTextResult(w, r)
		return
	}
	w.WriteString(printable(textLocation(r)) + ": ")
	if r.Name == "" {
		// Findings about the whole kind sit at its declaration.
		w.WriteString("kind " + printable(strings.Join(p.kinds, ", ")) + "\n")
	} else {
		w.WriteString(printable(r.Name) + " in " + printable(kindList(p.kinds)) + "\n")
	}
	for _, f := range p.findings {
		w.WriteString("  " + severityWord(f.finding.Enforcement) + " [" + printable(f.finding.Rule) + "] ")
		if path := f.paths[0]; path != "<nil>" && path != "" {
			// "<nil>" is field.Path's whole object: no path to print.
			w.WriteString(printable(path))
			if len(f.paths) > 1 {
				fmt.Fprintf(w, " (and %d more)", len(f.paths)-1)
			}
			w.WriteString(": ")
		}
		w.WriteString(printable(f.finding.Message) + "\n")
	}
}

// kindList names the kinds a finding reaches, with their number when it is
// more than a glance counts.
func kindList(kinds []string) string {
	s := strings.Join(kinds, ", ")
	if len(kinds) > 3 {
		s += " (" + strconv.Itoa(len(kinds)) + " kinds)"
	}
	return s
}

// severityWord is the lint severity an enforcement stands for: crdguard lint
// files errors as Deny, warnings as Warn and infos as Audit.
func severityWord(e v1alpha1.Enforcement) string {
	switch e {
	case v1alpha1.Deny:
		return "error"
	case v1alpha1.Warn:
		return "warning"
	case v1alpha1.Audit:
		return "info"
	}
	return strings.ToLower(string(e))
}

// appendNew appends s unless list holds it already.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
