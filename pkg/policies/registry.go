package policies

import "fmt"

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
