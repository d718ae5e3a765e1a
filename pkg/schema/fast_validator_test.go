package schema

import (
	"encoding/json"
	"slices"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// TestAcceptOnlyValidator checks that the first strategies' schema
// validator has no errors exactly when the check certainly accepts, and
// otherwise only its own marker, on creates and updates alike: for an
// unknown verdict as for an invalid one.
func TestAcceptOnlyValidator(t *testing.T) {
	var s spec.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"a":{"type":"string","maxLength":3},"b":{"type":"string","format":"date-time"}}}`), &s); err != nil {
		t.Fatal(err)
	}
	a := acceptOnlyValidator{compileCheck(&s)}
	for _, c := range []struct {
		name  string
		value map[string]any
		valid bool
	}{
		{"certainly valid", map[string]any{"a": "abc"}, true},
		{"invalid", map[string]any{"a": "abcd"}, false},
		{"unknown: a format on a list", map[string]any{"b": []any{"x"}}, false},
	} {
		for _, r := range []struct {
			op   string
			errs []error
		}{
			{"create", a.Validate(c.value).Errors},
			{"update", a.ValidateUpdate(c.value, map[string]any{}).Errors},
		} {
			want := []error{errNotCertainlyValid}
			if c.valid {
				want = nil
			}
			if !slices.Equal(r.errs, want) {
				t.Errorf("%s, %s: errors %v, want %v", c.name, r.op, r.errs, want)
			}
		}
	}
}
