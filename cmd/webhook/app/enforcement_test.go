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
		if o.Mode != mode {
			t.Errorf("--enforcement %s parsed as %q", mode, o.Mode)
		}
	}
	if o, _ := parse(t, "--policies", examplePolicy); o.Mode != "webhook" {
		t.Errorf("default enforcement %q, want webhook", o.Mode)
	}
	_, err := parse(t, "--policies", examplePolicy, "--enforcement", "vaps")
	want := `enforcement: Unsupported value: "vaps": supported values: "webhook", "vap", "both"`
	if err == nil || err.Error() != want {
		t.Errorf("--enforcement vaps: %v, want %s", err, want)
	}
}
