package report

import (
	"reflect"
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestDecide(t *testing.T) {
	tests := []struct {
		name   string
		result Result
		want   bool
	}{
		{"no findings", Result{}, true},
		{"deny finding", Result{Violations: []Finding{{Enforcement: v1alpha1.Deny}}}, false},
		{"warn and audit only", Result{Violations: []Finding{{Enforcement: v1alpha1.Warn}, {Enforcement: v1alpha1.Audit}}}, true},
		{"warn then deny", Result{Violations: []Finding{{Enforcement: v1alpha1.Warn}, {Enforcement: v1alpha1.Deny}}}, false},
		{"input error", Result{Error: "yaml: bad"}, false},
		{"warnings only", Result{Warnings: []string{"deprecated"}}, true},
		{"skipped", Result{Skipped: true, SkipReason: "no schema"}, true},
		{"stale allowed is overwritten", Result{Allowed: true, Violations: []Finding{{Enforcement: v1alpha1.Deny}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.result
			r.Decide()
			if r.Allowed != tt.want {
				t.Errorf("Allowed = %v, want %v", r.Allowed, tt.want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		results []Result
		want    Summary
	}{
		{"empty", nil, Summary{}},
		{"sample", sampleResults(), Summary{Objects: 6, Allowed: 2, Denied: 2, Skipped: 1, Errors: 1, Unreadable: 1}},
		{
			"error wins over skipped and deny",
			[]Result{{Error: "bad", Skipped: true, Violations: []Finding{{Enforcement: v1alpha1.Deny}}}},
			Summary{Objects: 1, Errors: 1, Unreadable: 1},
		},
		{
			"skipped wins over deny",
			[]Result{{Skipped: true, Violations: []Finding{{Enforcement: v1alpha1.Deny}}}},
			Summary{Objects: 1, Skipped: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := New(tt.results)
			if rep.Summary != tt.want {
				t.Errorf("Summary = %+v, want %+v", rep.Summary, tt.want)
			}
			if rep.Version != JSONVersion {
				t.Errorf("Version = %q, want %q", rep.Version, JSONVersion)
			}
			if rep.Results == nil {
				t.Error("Results is nil, want an empty slice")
			}
			for i, r := range rep.Results {
				if r.Violations == nil || r.Warnings == nil {
					t.Errorf("result %d: Violations or Warnings left nil", i)
				}
			}
		})
	}
}

func TestNewLeavesInputAlone(t *testing.T) {
	in := []Result{{Violations: []Finding{{Enforcement: v1alpha1.Deny}}, Allowed: true}}
	before := append([]Result(nil), in...)
	rep := New(in)
	if !reflect.DeepEqual(in, before) {
		t.Errorf("New changed its input: %+v", in)
	}
	if rep.Results[0].Allowed {
		t.Error("report result allowed despite a Deny finding")
	}
}

func TestRuleID(t *testing.T) {
	tests := []struct {
		finding Finding
		want    string
	}{
		{Finding{Policy: "schema", Rule: "unknown-field", Type: "FieldValueNotSupported"}, "schema/unknown-field"},
		{Finding{Policy: "require-limits", Rule: "resources"}, "require-limits/resources"},
		{Finding{Policy: "schema", Type: "FieldValueInvalid"}, "schema/FieldValueInvalid"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.finding.RuleID(); got != tt.want {
				t.Errorf("RuleID() = %q, want %q", got, tt.want)
			}
		})
	}
}
