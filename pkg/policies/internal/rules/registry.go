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
