package precision

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// Verdict is a human's label of a finding.
type Verdict string

const (
	// True: a real defect a user would hit.
	True Verdict = "true"
	// False: a false alarm.
	False Verdict = "false"
	// Unlabelled: written by -update for a new finding; fails the test
	// until someone labels it.
	Unlabelled Verdict = "unlabelled"
)

// MarshalJSON writes true and false as YAML booleans, the way people write
// them, and unlabelled as a word.
func (v Verdict) MarshalJSON() ([]byte, error) {
	switch v {
	case True, False:
		return []byte(v), nil
	}
	return json.Marshal(string(v))
}

// MarshalYAML is MarshalJSON for the writer, which keeps the fields in
// the order people read them.
func (v Verdict) MarshalYAML() (any, error) {
	switch v {
	case True, False:
		return v == True, nil
	}
	return string(v), nil
}

// UnmarshalJSON reads true, false or "unlabelled"; anything else is an
// error, so that a typo never counts as a label.
func (v *Verdict) UnmarshalJSON(data []byte) error {
	var b bool
	if err := json.Unmarshal(data, &b); err == nil {
		*v = False
		if b {
			*v = True
		}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil || Verdict(s) != Unlabelled {
		return fmt.Errorf("verdict %s: want true, false or %s", data, Unlabelled)
	}
	*v = Unlabelled
	return nil
}

// Finding is one labelled finding. Check, CRD, Version and Path identify it
// across runs: they are what the report prints, without line numbers,
// which move with every release.
type Finding struct {
	Check   string `json:"check" yaml:"check"`
	CRD     string `json:"crd" yaml:"crd"`
	Version string `json:"version,omitempty" yaml:"version,omitempty"`
	Path    string `json:"path" yaml:"path"`
	// Severity is a lint finding's, as last reported: a true finding may
	// move between error and warning without losing its label.
	Severity string  `json:"severity,omitempty" yaml:"severity,omitempty"`
	Verdict  Verdict `json:"verdict" yaml:"verdict"`
	// Reason says in one line why the finding is or is not a defect.
	Reason string `json:"reason,omitempty" yaml:"reason,omitempty"`
}

// Key identifies a finding without its label.
func (f Finding) Key() string {
	return strings.Join([]string{f.Check, f.CRD, f.Version, f.Path}, " ")
}

// Golden is one golden file: a header comment saying what was run, and the
// labelled findings.
type Golden struct {
	// Header is the comment on top, without "# ", one line each.
	Header   []string  `json:"-" yaml:"-"`
	Findings []Finding `json:"findings" yaml:"findings"`
}

// ReadGolden reads a golden file; a missing one reads as empty, so that
// -update can create it.
func ReadGolden(path string) (*Golden, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Golden{}, nil
	}
	if err != nil {
		return nil, err
	}
	g := &Golden{}
	for line := range strings.Lines(string(data)) {
		comment, ok := strings.CutPrefix(line, "#")
		if !ok {
			break
		}
		g.Header = append(g.Header, strings.TrimSpace(comment))
	}
	if err := yaml.UnmarshalStrict(data, g); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for _, f := range g.Findings {
		if seen[f.Key()] {
			return nil, fmt.Errorf("%s: %s is listed twice", path, f.Key())
		}
		seen[f.Key()] = true
	}
	return g, nil
}

// Write writes g to path, its findings sorted by key.
func (g *Golden) Write(path string) error {
	slices.SortFunc(g.Findings, func(a, b Finding) int { return strings.Compare(a.Key(), b.Key()) })
	var buf bytes.Buffer
	for _, h := range g.Header {
		fmt.Fprintf(&buf, "# %s\n", h)
	}
	enc := yamlv3.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(g); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Comparison is what a run's findings make of a golden file.
type Comparison struct {
	// Unlabelled are reported findings the golden file lacks or has not
	// labelled yet.
	Unlabelled []Finding
	// Gone are golden findings no longer reported.
	Gone []Finding
	// TrueCount and Count are the reported findings labelled true, and all
	// reported findings.
	TrueCount, Count int
}

// Compare matches the reported findings (labels ignored) with g.
func (g *Golden) Compare(reported []Finding) Comparison {
	labelled := map[string]Finding{}
	for _, f := range g.Findings {
		labelled[f.Key()] = f
	}
	var c Comparison
	seen := map[string]bool{}
	for _, f := range reported {
		seen[f.Key()] = true
		c.Count++
		l, ok := labelled[f.Key()]
		switch {
		case !ok || l.Verdict == Unlabelled:
			c.Unlabelled = append(c.Unlabelled, f)
		case l.Verdict == True:
			c.TrueCount++
		}
	}
	for _, f := range g.Findings {
		if !seen[f.Key()] {
			c.Gone = append(c.Gone, f)
		}
	}
	return c
}

// Merge is g with reported's findings: the labels g has are kept, a new
// finding is unlabelled, and a finding no longer reported is dropped unless
// it is labelled true, whose loss must fail the test until a person
// removes it.
func (g *Golden) Merge(reported []Finding) *Golden {
	labelled := map[string]Finding{}
	for _, f := range g.Findings {
		labelled[f.Key()] = f
	}
	out := &Golden{Header: g.Header}
	seen := map[string]bool{}
	for _, f := range reported {
		if seen[f.Key()] {
			continue
		}
		seen[f.Key()] = true
		if l, ok := labelled[f.Key()]; ok {
			f.Verdict, f.Reason = l.Verdict, l.Reason
		} else {
			f.Verdict, f.Reason = Unlabelled, ""
		}
		out.Findings = append(out.Findings, f)
	}
	for _, f := range g.Findings {
		if !seen[f.Key()] && f.Verdict == True {
			out.Findings = append(out.Findings, f)
		}
	}
	return out
}

// Precision is true findings over all, 1 when there are none.
func Precision(trueCount, count int) float64 {
	if count == 0 {
		return 1
	}
	return float64(trueCount) / float64(count)
}
