package app

import (
	"testing"
)

func TestEnforcementOption(t *testing.T) {
	for _, mode := range []string{"webhook", "vap", "both"} {
		o, err := parse(t, "--policies", examplePolicy, "--enforcement", mode)
		if err != nil {
			t.Fatalf("--enforcement %s: %v", mode, err)
		}
		if o.Enforcement != mode {
			t.Errorf("--enforcement %s parsed as %q", mode, o.Enforcement)
		}
	}
	if o, _ := parse(t, "--policies", examplePolicy); o.Enforcement != "webhook" {
		t.Errorf("default enforcement %q, want webhook", o.Enforcement)
	}
	_, err := parse(t, "--policies", examplePolicy, "--enforcement", "vaps")
	want := `enforcement: Unsupported value: "vaps": supported values: "webhook", "vap", "both"`
	if err == nil || err.Error() != want {
		t.Errorf("--enforcement vaps: %v, want %s", err, want)
	}
}
