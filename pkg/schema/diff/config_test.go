package diff

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{"unknown key", "chekcs: {}\n", `unknown field "chekcs"`},
		{"unknown check", "checks: {no-such-check: Warn}\n", `checks[no-such-check]: Not found: "no-such-check"`},
		{"bad enforcement", "checks: {field-removed: Fail}\n", `checks[field-removed]: Unsupported value: "Fail": supported values: "Deny", "Warn", "Audit"`},
		{"bad enum policy", "enumValueAdded: Allow\n", `enumValueAdded: Unsupported value: "Allow"`},
		{"waiver without reason, path or valid date", "waivers: [{check: field-removed, expires: tomorrow}]\n",
			`[waivers[0].path: Required value: use "*" to waive the check everywhere, waivers[0].reason: Required value: say why the change is acceptable, waivers[0].expires: Invalid value: "tomorrow": want a date as YYYY-MM-DD]`},
		{"waiver of unknown check", "waivers: [{check: nope, path: '*', reason: r}]\n", `waivers[0].check: Not found: "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.config)
			_, err := LoadConfig(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), path+": ") {
				t.Errorf("error = %v\nwant it to start with the path and contain %q", err, tt.want)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	path := writeConfig(t, `
checks:
  type-changed: Warn
  description-changed: Deny
  version-removed: Error  # deprecated: Error and None read as Deny and Audit
enumValueAdded: None
waivers:
- check: field-removed
  crd: widgets.example.com
  path: spec.versions[*].schema.openAPIV3Schema.properties.spec.properties.legacy
  reason: nobody ever set it
  expires: "2026-12-31"
- check: pattern-changed
  path: "*"
  reason: tightened on purpose
  expires: "2026-01-31"
`)
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	wantDeprecated := []string{
		`checks[version-removed]: "Error" is deprecated and will be refused in the next release: use "Deny"`,
		`enumValueAdded: "None" is deprecated and will be refused in the next release: use "Audit"`,
	}
	if !slices.Equal(c.Deprecated, wantDeprecated) {
		t.Errorf("Deprecated = %q, want %q", c.Deprecated, wantDeprecated)
	}
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	legacy := "spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.legacy"
	tests := []struct {
		name string
		ch   Change
		want Decision
	}{
		{"default breaking", Change{Check: "field-removed", Impact: Breaking, CRD: "widgets.example.com", Path: "spec.x"}, Decision{Enforcement: v1alpha1.Deny}},
		{"configured", Change{Check: "type-changed", Impact: Breaking}, Decision{Enforcement: v1alpha1.Warn}},
		{"Error spells Deny", Change{Check: "version-removed", Impact: Warning}, Decision{Enforcement: v1alpha1.Deny}},
		{"info stays audit", Change{Check: "description-changed", Impact: Info}, Decision{Enforcement: v1alpha1.Audit}},
		{"enum policy", Change{Check: "enum-value-added", Impact: Warning}, Decision{Enforcement: v1alpha1.Audit}},
		{"waived", Change{Check: "field-removed", Impact: Breaking, CRD: "widgets.example.com", Path: legacy}, Decision{Enforcement: v1alpha1.Audit, Waiver: &c.Waivers[0]}},
		{"waiver for another CRD", Change{Check: "field-removed", Impact: Breaking, CRD: "gadgets.example.com", Path: legacy}, Decision{Enforcement: v1alpha1.Deny}},
		{"expired waiver", Change{Check: "pattern-changed", Impact: Breaking, Path: "spec.a"}, Decision{Enforcement: v1alpha1.Deny, Waiver: &c.Waivers[1], Expired: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Decide(tt.ch, now); got != tt.want {
				t.Errorf("Decide = %+v, want %+v", got, tt.want)
			}
		})
	}
	// The expiry day itself is still covered.
	last := time.Date(2026, 1, 31, 23, 59, 0, 0, time.UTC)
	if d := c.Decide(Change{Check: "pattern-changed", Impact: Breaking, Path: "x"}, last); d.Expired || d.Enforcement != v1alpha1.Audit {
		t.Errorf("on its last day the waiver applies: %+v", d)
	}
	var none *Config
	if d := none.Decide(Change{Impact: Warning}, now); d.Enforcement != v1alpha1.Warn {
		t.Errorf("nil config: %+v", d)
	}
}
