package vap

import (
	"fmt"

	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// kindCompilations says, for every rule kind of the rules registry, how a
// rule of it compiles, one line each: to the checks of a
// ValidatingAdmissionPolicy, to a MutatingAdmissionPolicy's mutation, or
// not at all, with the reason the webhook keeps it. A kind missing here
// fails TestKindCompilationsCoverRuleKinds, so a new kind is never left to
// the webhook without saying so.
var kindCompilations = registerKindCompilations(
	validatingKind("resources", compileResources),
	validatingKind("imageVersion", compileImageVersion),
	validatingKind("transitions", compileTransitions),
	validatingKind("cel", compileCELRule),
	validatingKind("deletion", func(d *rules.Deletion, _ *compiler) ([]ruleCEL, error) { return compileDeletion(d) }),
	mutatingKind("defaults", (*mutationBuilder).add),
	kindCompilation{kind: "versionTable", webhookOnly: "versionTable is not compiled: the webhook matches its rows' version patterns against versions read from fields and image tags"},
)

// kindCompilation is one rule kind's compilation. Exactly one of its
// fields besides kind is set.
type kindCompilation struct {
	kind string
	// validate compiles a rule to ValidatingAdmissionPolicy checks.
	validate func(rules.Rule, *compiler) ([]ruleCEL, error)
	// mutate adds a rule to the policy's MutatingAdmissionPolicy.
	mutate func(*mutationBuilder, rules.Rule, *compiler) error
	// webhookOnly is why no admission policy can express the kind.
	webhookOnly string
}

// validatingKind registers a kind compiled to ValidatingAdmissionPolicy checks
// by compile, which takes the kind's own rule type.
func validatingKind[R rules.Rule](kind string, compile func(R, *compiler) ([]ruleCEL, error)) kindCompilation {
	return kindCompilation{kind: kind, validate: func(r rules.Rule, c *compiler) ([]ruleCEL, error) {
		typed, ok := r.(R)
		if !ok {
			return nil, fmt.Errorf("rule kind %s: compiled rule is a %T", kind, r)
		}
		return compile(typed, c)
	}}
}

// mutatingKind registers a kind compiled to a MutatingAdmissionPolicy's
// mutation by add, which takes the kind's own rule type.
func mutatingKind[R rules.Rule](kind string, add func(*mutationBuilder, R, *compiler) error) kindCompilation {
	return kindCompilation{kind: kind, mutate: func(b *mutationBuilder, r rules.Rule, c *compiler) error {
		typed, ok := r.(R)
		if !ok {
			return fmt.Errorf("rule kind %s: compiled rule is a %T", kind, r)
		}
		return add(b, typed, c)
	}}
}

func registerKindCompilations(compilations ...kindCompilation) map[string]kindCompilation {
	byKind := make(map[string]kindCompilation, len(compilations))
	for _, k := range compilations {
		if _, dup := byKind[k.kind]; dup {
			panic(fmt.Sprintf("rule kind %q has two VAP compilations", k.kind))
		}
		set := 0
		for _, s := range []bool{k.validate != nil, k.mutate != nil, k.webhookOnly != ""} {
			if s {
				set++
			}
		}
		if set != 1 {
			panic(fmt.Sprintf("rule kind %q: a VAP compilation validates, mutates or names why the webhook keeps it, exactly one", k.kind))
		}
		byKind[k.kind] = k
	}
	return byKind
}
