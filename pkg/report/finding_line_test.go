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
			{Field: "spec.a", Message: "here", Policy: "diff", Rule: "r", Enforcement: v1alpha1.Deny, Line: 42},
			{Field: "spec.b", Message: "there", Policy: "diff", Rule: "r", Enforcement: v1alpha1.Deny},
		},
	}})

	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine int } `json:"region"`
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
		lines = append(lines, r.Locations[0].PhysicalLocation.Region.StartLine)
	}
	if len(lines) != 2 || lines[0] != 42 || lines[1] != 6 {
		t.Errorf("SARIF startLines = %v, want [42 6]", lines)
	}

	text := string(render(t, Text, rep, Options{}))
	if !strings.Contains(text, "  * crds.yaml:42: [diff/r] spec.a: here\n") || !strings.Contains(text, "  * [diff/r] spec.b: there\n") {
		t.Errorf("text:\n%s", text)
	}

	js := render(t, JSON, rep, Options{})
	if n := bytes.Count(js, []byte(`"line": 42`)); n != 1 {
		t.Errorf("JSON has %d \"line\": 42, want 1:\n%s", n, js)
	}
	var back Report
	if err := json.Unmarshal(js, &back); err != nil || back.Results[0].Violations[0].Line != 42 || back.Results[0].Violations[1].Line != 0 {
		t.Errorf("JSON round trip: %v %+v", err, back.Results[0].Violations)
	}
}
