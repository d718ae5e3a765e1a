package app

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/hacktools"
)

// validateSARIFSchema validates SARIF logs against the SARIF 2.1.0 JSON
// schema (the final one with errata, from the npm package Microsoft's SARIF
// SDK ships it in: hack/tools/install.sh sarif-schema) with
// santhosh-tekuri/jsonschema, through hack/tools/jsonschema-validate: the
// validator is a dependency of the tools module, not of crdguard. A log
// missing a required property is checked to fail first, so that a validator
// that accepts everything cannot pass for one that works.
func validateSARIFSchema(t *testing.T, files ...string) {
	t.Helper()
	schema, err := hacktools.Path(t.Context(), "sarif-schema", nil)
	if err != nil {
		t.Fatal(err)
	}
	validate := func(files ...string) (string, error) { return hacktools.ValidateJSON(schema, files...) }

	broken := filepath.Join(t.TempDir(), "no-driver-name.sarif")
	writeFile(t, broken, `{"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}`)
	if out, err := validate(broken); err == nil || !strings.Contains(out, "missing property 'name'") {
		t.Fatalf("the validator must reject a run without tool.driver.name: %v\n%s", err, out)
	}
	if out, err := validate(files...); err != nil {
		t.Errorf("SARIF output does not validate against %s: %v\n%s", schema, err, out)
	}
}

// checkSARIF checks the properties SARIF 2.1.0 requires (§3.13 sarifLog,
// §3.14 run, §3.18 tool, §3.19 toolComponent, §3.27 result, §3.11 message,
// §3.29 physicalLocation, §3.30 region, §3.49 reportingDescriptor), and the
// ruleIndex cross-references that a JSON schema cannot express.
func checkSARIF(t *testing.T, out []byte) {
	t.Helper()
	type location struct {
		PhysicalLocation *struct {
			ArtifactLocation *struct {
				URI *string `json:"uri"`
			} `json:"artifactLocation"`
			Region *struct {
				StartLine *int `json:"startLine"`
			} `json:"region"`
		} `json:"physicalLocation"`
	}
	var log struct {
		Version *string `json:"version"`
		Runs    []struct {
			Tool *struct {
				Driver *struct {
					Name  *string `json:"name"`
					Rules []struct {
						ID *string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    *string `json:"ruleId"`
				RuleIndex *int    `json:"ruleIndex"`
				Level     *string `json:"level"`
				Message   *struct {
					Text *string `json:"text"`
				} `json:"message"`
				Locations []location `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatalf("sarif: %v", err)
	}
	if log.Version == nil || *log.Version != "2.1.0" || log.Runs == nil {
		t.Fatalf("sarif: version %v, runs %v: want 2.1.0 and runs", log.Version, log.Runs)
	}
	for _, run := range log.Runs {
		if run.Tool == nil || run.Tool.Driver == nil || run.Tool.Driver.Name == nil || *run.Tool.Driver.Name == "" {
			t.Fatalf("sarif: a run needs tool.driver.name")
		}
		rules := run.Tool.Driver.Rules
		for i, r := range rules {
			if r.ID == nil || *r.ID == "" {
				t.Errorf("sarif: rule %d has no id", i)
			}
		}
		for i, res := range run.Results {
			if res.Message == nil || res.Message.Text == nil || *res.Message.Text == "" {
				t.Errorf("sarif: result %d has no message.text", i)
			}
			if res.Level != nil && *res.Level != "none" && *res.Level != "note" && *res.Level != "warning" && *res.Level != "error" {
				t.Errorf("sarif: result %d level %q", i, *res.Level)
			}
			if res.RuleIndex != nil {
				if *res.RuleIndex < 0 || *res.RuleIndex >= len(rules) || res.RuleID == nil || *rules[*res.RuleIndex].ID != *res.RuleID {
					t.Errorf("sarif: result %d ruleIndex %d does not point at its rule %v", i, *res.RuleIndex, res.RuleID)
				}
			}
			for _, loc := range res.Locations {
				pl := loc.PhysicalLocation
				if pl == nil {
					continue
				}
				if pl.ArtifactLocation == nil || pl.ArtifactLocation.URI == nil || *pl.ArtifactLocation.URI == "" {
					t.Errorf("sarif: result %d location has no artifactLocation.uri", i)
				}
				if pl.Region != nil && (pl.Region.StartLine == nil || *pl.Region.StartLine < 1) {
					t.Errorf("sarif: result %d region needs startLine >= 1", i)
				}
			}
		}
	}
}
