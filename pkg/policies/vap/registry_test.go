package vap

import (
	"slices"
	"testing"

	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// TestKindCompilationsCoverRuleKinds requires every rule kind of the rules
// registry to say how it compiles: a new kind without a line in
// kindCompilations fails here, rather than staying with the webhook
// unnoticed, and a line for a kind the rules registry does not have is a
// leftover.
func TestKindCompilationsCoverRuleKinds(t *testing.T) {
	kinds := rules.KindNames()
	if len(kinds) == 0 {
		t.Fatal("the rules registry lists no kinds")
	}
	for _, kind := range kinds {
		c, ok := kindCompilations[kind]
		switch {
		case !ok:
			t.Errorf("rule kind %q has no entry in kindCompilations: register how it compiles (validatingKind, mutatingKind) or why the webhook keeps it (webhookOnly)", kind)
		case c.webhookOnly != "" && len(c.webhookOnly) < 20:
			t.Errorf("rule kind %q stays with the webhook for a reason too short to tell a user why: %q", kind, c.webhookOnly)
		}
	}
	for kind := range kindCompilations {
		if !slices.Contains(kinds, kind) {
			t.Errorf("kindCompilations has %q, which is no rule kind", kind)
		}
	}
}

// TestRegisterKindCompilationsRefusesAmbiguity shows the registry refuses
// a kind registered twice and an entry that says nothing or too much.
func TestRegisterKindCompilationsRefusesAmbiguity(t *testing.T) {
	validate := validatingKind("resources", compileResources)
	for name, entries := range map[string][]kindCompilation{
		"twice":   {validate, validate},
		"nothing": {{kind: "resources"}},
		"both":    {{kind: "resources", validate: validate.validate, webhookOnly: "a reason long enough to read"}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("registerKindCompilations accepted it")
				}
			}()
			registerKindCompilations(entries...)
		})
	}
}

// TestCompileRuleRefusesUnregisteredKind shows a kind without a line is an
// error, not a rule silently left to the webhook.
func TestCompileRuleRefusesUnregisteredKind(t *testing.T) {
	_, err := compileRule("noSuchKind", rules.Compiled{}, parsePolicy(t, `{metadata: {name: p}}`), &compiler{})
	want := `rule kind "noSuchKind" has no entry in vap's kindCompilations`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
