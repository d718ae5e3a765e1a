package rules

import (
	"fmt"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// ruleKinds lists every rule kind, one line each. Adding a rule is a new
// file and a line here.
var ruleKinds = registerRuleKinds(
	resourcesKind,
	imageVersionKind,
	transitionsKind,
	celKind,
	deletionKind,
	defaultsKind,
	versionTableKind,
)

func registerRuleKinds(kinds ...ruleKind) []ruleKind {
	seen := map[string]bool{}
	for _, k := range kinds {
		if seen[k.name] {
			panic(fmt.Sprintf("rule kind %q registered twice", k.name))
		}
		seen[k.name] = true
	}
	return kinds
}

// KindOf is the name of the kind of rule spec configures, "" for none.
// Compiling a policy checks that exactly one is.
func KindOf(spec *v1alpha1.Rule) string {
	for _, k := range ruleKinds {
		if k.configured(spec) {
			return k.name
		}
	}
	return ""
}

// KindNames lists the name of every rule kind, in the registry's order,
// so that a compiler of rules (vap) can prove it knows them all.
func KindNames() []string {
	names := make([]string, len(ruleKinds))
	for i, k := range ruleKinds {
		names[i] = k.name
	}
	return names
}
