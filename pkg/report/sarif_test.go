package report

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// sarifLog is the log sarifWriter writes around results and rules, for
// decoding it.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Results []sarifResult `json:"results"`
	Tool    sarifTool     `json:"tool"`
}

func TestSARIFGolden(t *testing.T) {
	golden.Assert(t, filepath.Join("testdata", "report.sarif"), render(t, SARIF, sampleReport(), Options{ToolVersion: "v0.3.0"}))
}

// The checks below decode into plain maps, not the writer's own structs, so
// that a property misspelled in a struct tag cannot hide from them.
func TestSARIFRequiredProperties(t *testing.T) {
	var log map[string]any
	if err := json.Unmarshal(render(t, SARIF, sampleReport(), Options{ToolVersion: "v0.3.0"}), &log); err != nil {
		t.Fatal(err)
	}
	if log["version"] != "2.1.0" {
		t.Errorf("version = %v, want 2.1.0", log["version"])
	}
	if log["$schema"] != "https://json.schemastore.org/sarif-2.1.0.json" {
		t.Errorf("$schema = %v", log["$schema"])
	}
	runs := log["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	run := runs[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	if driver["name"] != "crdguard" || driver["informationUri"] != "https://github.com/crdguard/crdguard" || driver["version"] != "v0.3.0" {
		t.Errorf("driver = %v", driver)
	}

	var ruleIDs []string
	for _, r := range driver["rules"].([]any) {
		rule := r.(map[string]any)
		ruleIDs = append(ruleIDs, rule["id"].(string))
		// Code scanning shows these beside each result.
		short, _ := rule["shortDescription"].(map[string]any)
		full, _ := rule["fullDescription"].(map[string]any)
		help, _ := rule["help"].(map[string]any)
		uri, _ := rule["helpUri"].(string)
		if short["text"] == "" || short["text"] == nil || full["text"] == nil || help["text"] == nil || help["markdown"] == nil || !strings.HasPrefix(uri, "https://github.com/crdguard/crdguard/blob/main/docs/") {
			t.Errorf("rule %v lacks a description, help or helpUri", rule["id"])
		}
	}
	if got := driver["rules"].([]any)[1].(map[string]any)["shortDescription"].(map[string]any)["text"]; got != "Field the CRD schema does not declare" {
		t.Errorf("schema/unknown-field shortDescription = %q", got)
	}
	wantRules := []string{"schema/maximum", "schema/unknown-field", "require-backup/schedule", "labels/team", "images/pinned", "crdguard/warning", "issuers/contact", "crdguard/input-error", "gotypes/zero-value-default"}
	if !reflect.DeepEqual(ruleIDs, wantRules) {
		t.Errorf("rules = %q, want %q", ruleIDs, wantRules)
	}

	results := run["results"].([]any)
	if len(results) != 10 {
		t.Fatalf("%d results, want 10", len(results))
	}
	for i, x := range results {
		res := x.(map[string]any)
		id, _ := res["ruleId"].(string)
		idx, ok := res["ruleIndex"].(float64)
		if !ok || int(idx) >= len(ruleIDs) || ruleIDs[int(idx)] != id {
			t.Errorf("result %d: ruleId %q and ruleIndex %v do not match the rules", i, id, res["ruleIndex"])
		}
		if res["message"].(map[string]any)["text"] == "" {
			t.Errorf("result %d: empty message", i)
		}
		locs, _ := res["locations"].([]any)
		if len(locs) != 1 {
			t.Fatalf("result %d: %d locations, want 1", i, len(locs))
		}
		uri := locs[0].(map[string]any)["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)["uri"]
		if uri == "" || uri == nil {
			t.Errorf("result %d: no artifact uri", i)
		}
	}
}

func TestSARIFResults(t *testing.T) {
	tests := []struct {
		name   string
		result Result
		want   []sarifResult
	}{
		{
			name: "levels follow enforcement",
			result: Result{Source: "a.yaml", Line: 3, Kind: "Pod", Namespace: "x", Name: "p", Violations: []Finding{
				{Field: "spec.a", Message: "m1", Policy: "p", Rule: "deny", Enforcement: v1alpha1.Deny},
				{Field: "spec.b", Message: "m2", Policy: "p", Rule: "warn", Enforcement: v1alpha1.Warn},
				{Field: "spec.c", Message: "m3", Policy: "p", Rule: "audit", Enforcement: v1alpha1.Audit},
				{Field: "spec.d", Message: "m4", Policy: "p", Rule: "deny", Enforcement: v1alpha1.Deny},
			}},
			want: []sarifResult{
				sarifResultAt(0, "p/deny", "error", "spec.a: m1", "a.yaml", 3, "spec.a", "Pod/x/p.spec.a", "property"),
				sarifResultAt(1, "p/warn", "warning", "spec.b: m2", "a.yaml", 3, "spec.b", "Pod/x/p.spec.b", "property"),
				sarifResultAt(2, "p/audit", "note", "spec.c: m3", "a.yaml", 3, "spec.c", "Pod/x/p.spec.c", "property"),
				sarifResultAt(0, "p/deny", "error", "spec.d: m4", "a.yaml", 3, "spec.d", "Pod/x/p.spec.d", "property"),
			},
		},
		{
			name: "cluster-scoped root finding without line",
			result: Result{Source: "-", Kind: "Namespace", Name: "team-a", Violations: []Finding{
				{Field: "<nil>", Message: "Forbidden: reserved", Policy: "names", Rule: "reserved", Enforcement: v1alpha1.Deny},
			}},
			want: []sarifResult{
				sarifResultAt(0, "names/reserved", "error", "<nil>: Forbidden: reserved", "-", 0, "team-a", "Namespace/team-a", "resource"),
			},
		},
		{
			name:   "input error without object",
			result: Result{Source: "dir with space/bad.yaml", Line: 2, Error: "yaml: bad indentation"},
			want: []sarifResult{{
				RuleID: "crdguard/input-error", RuleIndex: 0, Level: "error",
				Message: sarifMessage{Text: "yaml: bad indentation"},
				Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{
					ArtifactLocation: sarifArtifactLocation{URI: "dir%20with%20space/bad.yaml"},
					Region:           &sarifRegion{StartLine: 2},
				}}},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log sarifLog
			if err := json.Unmarshal(render(t, SARIF, New([]Result{tt.result}), Options{}), &log); err != nil {
				t.Fatal(err)
			}
			got := log.Runs[0].Results
			if !reflect.DeepEqual(got, tt.want) {
				gotJSON, _ := json.MarshalIndent(got, "", "  ")
				wantJSON, _ := json.MarshalIndent(tt.want, "", "  ")
				t.Errorf("results:\n%s\nwant:\n%s", gotJSON, wantJSON)
			}
		})
	}
}

func sarifResultAt(idx int, rule, level, text, uri string, line int, name, fqn, kind string) sarifResult {
	loc := sarifLocation{
		PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: uri}},
		LogicalLocations: []sarifLogicalLocation{{Name: name, FullyQualifiedName: fqn, Kind: kind}},
	}
	if line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
	}
	return sarifResult{RuleID: rule, RuleIndex: idx, Level: level, Message: sarifMessage{Text: text}, Locations: []sarifLocation{loc}}
}

func TestSARIFEmpty(t *testing.T) {
	want := `{
  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
  "version": "2.1.0",
  "runs": [
    {
      "results": [],
      "tool": {
        "driver": {
          "name": "crdguard",
          "informationUri": "https://github.com/crdguard/crdguard",
          "rules": []
        }
      }
    }
  ]
}
`
	if got := string(render(t, SARIF, New(nil), Options{})); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestArtifactURI(t *testing.T) {
	tests := []struct {
		source, want string
	}{
		{"deploy/db.yaml", "deploy/db.yaml"},
		{"./deploy/db.yaml", "./deploy/db.yaml"},
		{"-", "-"},
		{"my dir/a#1.yaml", "my%20dir/a%231.yaml"},
		{"/abs/db.yaml", "file:///abs/db.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			if got := artifactURI(tt.source); got != tt.want {
				t.Errorf("artifactURI(%q) = %q, want %q", tt.source, got, tt.want)
			}
		})
	}
}
