package app

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// A widget whose only mistake is a field the schema does not declare.
const widgetWithUnknownField = `apiVersion: test.crdguard.dev/v1
kind: Widget
metadata: {name: w}
spec:
  size: small
  bogus: 1
  users: [{name: a}]
`

// TestValidateFieldValidation runs one object with an unknown field under
// each --field-validation mode.
func TestValidateFieldValidation(t *testing.T) {
	tests := []struct {
		args         []string
		wantCode     int
		wantFields   []string
		wantWarnings []string
	}{
		{args: nil, wantCode: ExitViolations, wantFields: []string{"spec.bogus FieldValueForbidden unknown-field"}},
		{args: []string{"--field-validation=Strict"}, wantCode: ExitViolations, wantFields: []string{"spec.bogus FieldValueForbidden unknown-field"}},
		{args: []string{"--field-validation=warn"}, wantCode: ExitOK, wantWarnings: []string{`unknown field "spec.bogus"`}},
		{args: []string{"--field-validation=Warn", "--warnings-as-errors"}, wantCode: ExitViolations, wantFields: []string{"<nil> Warning warning"}},
		{args: []string{"--field-validation=Ignore"}, wantCode: ExitOK},
	}
	for _, tt := range tests {
		name := strings.Join(tt.args, " ")
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			args := append([]string{"validate", "--crds", widgetsCRD, "-o", "json"}, tt.args...)
			r := crdguard(t, widgetWithUnknownField, append(args, "-")...)
			if r.code != tt.wantCode {
				t.Fatalf("exit code = %d, want %d; stderr: %s", r.code, tt.wantCode, r.stder)
			}
			res := decodeReport(t, r).Results[0]
			if got := fields(res); !slices.Equal(got, tt.wantFields) {
				t.Errorf("findings %q, want %q", got, tt.wantFields)
			}
			if !slices.Equal(res.Warnings, tt.wantWarnings) && len(res.Warnings)+len(tt.wantWarnings) > 0 {
				t.Errorf("warnings %q, want %q", res.Warnings, tt.wantWarnings)
			}
		})
	}

	r := crdguard(t, widgetWithUnknownField, "validate", "--crds", widgetsCRD, "--field-validation=Warn", "-")
	want := "-:1 (document 1): Widget default/w is valid (CREATE):\n  Warning: unknown field \"spec.bogus\"\n"
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("text output: exit %d\n got: %q\nwant prefix: %q", r.code, r.stdout, want)
	}

	r = crdguard(t, widgetWithUnknownField, "validate", "--crds", widgetsCRD, "--field-validation=true", "-")
	if want := "crdguard: invalid argument \"true\" for \"--field-validation\" flag: unknown value \"true\": valid values are Strict, Warn, Ignore\nRun 'crdguard validate --help' for usage.\n"; r.code != ExitUsage || r.stder != want {
		t.Errorf("--field-validation=true: exit %d, stderr %q; want %d, %q", r.code, r.stder, ExitUsage, want)
	}
}

// TestValidateShowStored checks the stored object in the text and JSON
// outputs: pruned, defaulted, metadata filled; and none for a denied object.
func TestValidateShowStored(t *testing.T) {
	r := crdguard(t, widgetWithUnknownField, "validate", "--crds", widgetsCRD, "--field-validation=Ignore", "--show-stored", "-")
	want := `-:1 (document 1): Widget default/w is valid (CREATE):
  Stored:
    apiVersion: test.crdguard.dev/v1
    kind: Widget
    metadata:
      generation: 1
      name: w
      namespace: default
    spec:
      replicas: 1
      size: small
      users:
      - name: a
        role: reader
1 object: 1 allowed, 0 denied, 0 skipped, 0 errors
`
	if r.code != ExitOK || r.stdout != want {
		t.Errorf("text output: exit %d, stderr %q\n got:\n%s\nwant:\n%s", r.code, r.stder, r.stdout, want)
	}

	r = crdguard(t, widgetWithUnknownField, "validate", "--crds", widgetsCRD, "--field-validation=Ignore", "--show-stored", "-o", "json", "-")
	var rep struct {
		Results []struct {
			Stored map[string]any `json:"stored"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Results) != 1 {
		t.Fatalf("json: %v\n%s", err, r.stdout)
	}
	stored, _ := json.Marshal(rep.Results[0].Stored)
	wantJSON := `{"apiVersion":"test.crdguard.dev/v1","kind":"Widget","metadata":{"generation":1,"name":"w","namespace":"default"},"spec":{"replicas":1,"size":"small","users":[{"name":"a","role":"reader"}]}}`
	if string(stored) != wantJSON {
		t.Errorf("json stored\n got: %s\nwant: %s", stored, wantJSON)
	}

	// Strict denies the object: the server stores nothing.
	r = crdguard(t, widgetWithUnknownField, "validate", "--crds", widgetsCRD, "--show-stored", "-o", "json", "-")
	if r.code != ExitViolations || strings.Contains(r.stdout, `"stored"`) {
		t.Errorf("denied object: exit %d, want %d and no stored object\n%s", r.code, ExitViolations, r.stdout)
	}
}
