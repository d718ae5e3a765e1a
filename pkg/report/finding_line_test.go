package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// TestFindingLine checks a finding's own line: SARIF points at it and text
// prints it as file:line, while a finding without one keeps the document's
// line and the JSON of producers that never set it is unchanged.
func TestFindingLine(t *testing.T) {
	rep := New([]Result{{
		Source: "crds.yaml", Document: 1, Line: 6, Kind: "CustomResourceDefinition", Name: "widgets.example.com",
		Violations: []Finding{
			{Field: "spec.a", Message: "here", Policy: "diff", Rule: "r", Enforcement: v1alpha1.Deny, Line: 42, Column: 7},
			{Field: "spec.b", Message: "there", Policy: "diff", Rule: "r", Enforcement: v1alpha1.Deny},
		},
	}})

	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine, StartColumn int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(render(t, SARIF, rep, Options{}), &log); err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, r := range log.Runs[0].Results {
		region := r.Locations[0].PhysicalLocation.Region
		lines = append(lines, region.StartLine, region.StartColumn)
	}
	if len(lines) != 4 || lines[0] != 42 || lines[1] != 7 || lines[2] != 6 || lines[3] != 0 {
		t.Errorf("SARIF startLine, startColumn = %v, want [42 7 6 0]", lines)
	}

	text := string(render(t, Text, rep, Options{}))
	if !strings.Contains(text, "  * crds.yaml:42:7: [diff/r] spec.a: here\n") || !strings.Contains(text, "  * [diff/r] spec.b: there\n") {
		t.Errorf("text:\n%s", text)
	}

	js := render(t, JSON, rep, Options{})
	if n := bytes.Count(js, []byte(`"line": 42,`)) + bytes.Count(js, []byte(`"column": 7`)); n != 2 {
		t.Errorf("JSON has %d of \"line\": 42 and \"column\": 7, want 2:\n%s", n, js)
	}
	var back Report
	if err := json.Unmarshal(js, &back); err != nil || back.Results[0].Violations[0].Line != 42 || back.Results[0].Violations[0].Column != 7 || back.Results[0].Violations[1].Line != 0 {
		t.Errorf("JSON round trip: %v %+v", err, back.Results[0].Violations)
	}
}
