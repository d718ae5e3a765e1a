package app

import (
	"testing"
)

func TestEnforcementOption(t *testing.T) {
	for _, mode := range []string{"webhook", "vap", "both"} {
		t.Run(mode, func(t *testing.T) {
			checkOptions(t, []string{"--policies", examplePolicy, "--enforcement", mode}, func(o *Options) {
				o.Policies, o.Mode = []string{examplePolicy}, mode
			})
		})
	}
	if o, _ := parse(t, "--policies", examplePolicy); o.Mode != "webhook" {
		t.Errorf("default enforcement %q, want webhook", o.Mode)
	}
}

func TestEnforcementOptionInvalid(t *testing.T) {
	checkOptionsErrors(t, []string{"--policies", examplePolicy}, []optionsError{{
		name: "unknown mode",
		args: []string{"--enforcement", "vaps"},
		want: `enforcement: Unsupported value: "vaps": supported values: "webhook", "vap", "both"`,
	}})
}
