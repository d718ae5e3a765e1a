package report

import (
	"bytes"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	toolURI      = "https://github.com/crdguard/crdguard"

	// Results that are not findings still need a rule for code scanning
	// services to file them under.
	inputErrorRule = "crdguard/input-error"
	warningRule    = "crdguard/warning"
)

// Only the SARIF 2.1.0 properties crdguard fills in; the format has many
// more, none of which code scanning services require. The log and the run
// around them are written by sarifWriter, as results complete.
type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

// sarifRule is a reportingDescriptor (SARIF 2.1.0 §3.49).
type sarifRule struct {
	ID               string            `json:"id"`
	ShortDescription *sarifMessage     `json:"shortDescription,omitempty"`
	FullDescription  *sarifMessage     `json:"fullDescription,omitempty"`
	Help             *sarifMultiformat `json:"help,omitempty"`
	HelpURI          string            `json:"helpUri,omitempty"`
}

// sarifMultiformat is a multiformatMessageString (§3.12): plain text, and
// markdown for viewers that render it.
type sarifMultiformat struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifResult struct {
	RuleID string `json:"ruleId"`
	// No omitempty: index 0 is the first rule, not "unset".
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysicalLocation  `json:"physicalLocation"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	// A pointer so that an unknown line leaves region out: SARIF requires
	// startLine >= 1.
	Region *sarifRegion `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
	// SARIF counts columns in UTF-16 code units by default; the YAML
	// parser counts characters, which is the same outside the astral
	// planes, where keys and indentation are not.
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogicalLocation struct {
	Name               string `json:"name,omitempty"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind,omitempty"`
}

// sarifWriter writes one SARIF run for code scanning services. Each
// policy/rule pair becomes a reporting rule, so findings can be filtered and
// dismissed per rule; Warn and Audit findings and API warnings are included
// at lower levels rather than dropped, because code scanning is where teams
// triage them. Results are written as they are added; the rules, which
// results refer to by index, are collected (ids only) and written after
// them, in the run's "tool".
type sarifWriter struct {
	toolVersion string
	results     int
	rules       []sarifRule
	ruleIndex   map[string]int
}

func (s *sarifWriter) result(w *bytes.Buffer, r *Result) error {
	if r.Error != "" {
		if err := s.add(w, inputErrorRule, "error", r.Error, r, "", 0, 0); err != nil {
			return err
		}
	}
	for _, f := range r.Violations {
		if err := s.add(w, f.RuleID(), sarifLevel(f.Enforcement), findingLine(f, false), r, f.Field, f.Line, f.Column); err != nil {
			return err
		}
	}
	for _, warning := range r.Warnings {
		if err := s.add(w, warningRule, "warning", warning, r, "", 0, 0); err != nil {
			return err
		}
	}
	return nil
}

func (s *sarifWriter) add(w *bytes.Buffer, ruleID, level, text string, r *Result, field string, line, column int) error {
	idx, ok := s.ruleIndex[ruleID]
	if !ok {
		if s.ruleIndex == nil {
			s.ruleIndex = map[string]int{}
		}
		idx = len(s.rules)
		s.ruleIndex[ruleID] = idx
		s.rules = append(s.rules, sarifRuleOf(ruleID))
	}
	if s.results == 0 {
		s.begin(w)
		w.WriteString("\n        ")
	} else {
		w.WriteString(",\n        ")
	}
	s.results++
	return encodeJSON(w, "        ", sarifResult{
		RuleID:    ruleID,
		RuleIndex: idx,
		Level:     level,
		Message:   sarifMessage{Text: text},
		Locations: []sarifLocation{sarifLocationOf(r, field, line, column)},
	})
}

func (s *sarifWriter) begin(w *bytes.Buffer) {
	w.WriteString("{\n  \"$schema\": \"" + sarifSchema + "\",\n  \"version\": \"" + sarifVersion + "\",\n  \"runs\": [\n    {\n      \"results\": [")
}

func (s *sarifWriter) end(w *bytes.Buffer, _ Summary) error {
	if s.results == 0 {
		s.begin(w)
		w.WriteString("],\n      \"tool\": ")
	} else {
		w.WriteString("\n      ],\n      \"tool\": ")
	}
	rules := s.rules
	if rules == nil {
		rules = []sarifRule{}
	}
	tool := sarifTool{Driver: sarifDriver{
		Name:           "crdguard",
		InformationURI: toolURI,
		Version:        s.toolVersion,
		Rules:          rules,
	}}
	if err := encodeJSON(w, "      ", tool); err != nil {
		return err
	}
	_, err := w.WriteString("\n    }\n  ]\n}\n")
	return err
}

// sarifLevel maps an enforcement that is not one of the three known ones to
// warning: it did not reject the object, yet someone flagged it.
func sarifLevel(e v1alpha1.Enforcement) string {
	switch e {
	case v1alpha1.Deny:
		return "error"
	case v1alpha1.Audit:
		return "note"
	default:
		return "warning"
	}
}

// sarifLocationOf points at line and column, the finding's own, when they
// are known, else at the document's start, so that code scanning annotates
// the offending line.
func sarifLocationOf(r *Result, field string, line, column int) sarifLocation {
	loc := sarifLocation{PhysicalLocation: sarifPhysicalLocation{
		ArtifactLocation: sarifArtifactLocation{URI: artifactURI(r.Source)},
	}}
	if line <= 0 {
		line, column = r.Line, 0
	}
	if line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: line, StartColumn: max(column, 0)}
	}
	if ll, ok := logicalLocation(r, field); ok {
		loc.LogicalLocations = []sarifLogicalLocation{ll}
	}
	return loc
}

// artifactURI keeps relative paths relative, so that code scanning services
// resolve them against the repository root, and percent-encodes them as the
// URI the property must be. Absolute paths become file URIs because a
// relative reference starting with "/" would mean the repository root.
func artifactURI(source string) string {
	p := filepath.ToSlash(source)
	if filepath.IsAbs(source) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // Windows drive paths: C:/x -> /C:/x
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// logicalLocation names the object and field as "Kind/namespace/name.field"
// ("Kind/name.field" when cluster-scoped), since a line number alone cannot
// say which field of a multi-line document is at fault.
func logicalLocation(r *Result, field string) (sarifLogicalLocation, bool) {
	if r.Kind == "" && r.Name == "" {
		return sarifLogicalLocation{}, false
	}
	object := r.Kind
	if r.Namespace != "" {
		object += "/" + r.Namespace
	}
	if r.Name != "" {
		object += "/" + r.Name
	}
	// "<nil>" is how field.Path prints the root: the finding is about the
	// whole object.
	if field == "" || field == "<nil>" {
		return sarifLogicalLocation{Name: r.Name, FullyQualifiedName: object, Kind: "resource"}, true
	}
	return sarifLogicalLocation{Name: field, FullyQualifiedName: object + "." + field, Kind: "property"}, true
}
