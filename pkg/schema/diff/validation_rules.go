package diff

import (
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var validationRulesChanged = Check{
	Name:   "validation-rules-changed",
	Doc:    "a CEL x-kubernetes-validations rule was added or changed (breaking, unless no object valid under the old schema can fail it) or removed (info)",
	Claims: []string{"x-kubernetes-validations"},
	Property: func(n *Node) []Change {
		path := n.Path.Child("x-kubernetes-validations")
		oldRules, newRules := n.Old.XValidations, n.New.XValidations
		// Rules are matched by their text: a rule kept verbatim keeps its
		// verdicts whatever its position.
		var removed, added []apiextensionsv1.ValidationRule
		for _, r := range oldRules {
			if !slices.ContainsFunc(newRules, sameRule(r)) {
				removed = append(removed, r)
			}
		}
		for _, r := range newRules {
			if !slices.ContainsFunc(oldRules, sameRule(r)) {
				added = append(added, r)
			}
		}
		var out []Change
		// A removed and an added rule at the same rank read as one rule
		// rewritten, which is how authors edit them; either way, the new
		// rule is judged against all the old ones.
		for len(removed) > 0 && len(added) > 0 {
			ch := Change{Path: rulePath(path, newRules, added[0]), Old: removed[0].Rule, New: added[0].Rule}
			ch.Impact, ch.Message = newRuleImpact(n, oldRules, added[0],
				"the rule changed: stored objects it now rejects fail their next update (unless the rule ratchets on unchanged values)",
				"the rule changed, but no stored object can fail it")
			out = append(out, ch)
			removed, added = removed[1:], added[1:]
		}
		for _, r := range added {
			ch := Change{Path: rulePath(path, newRules, r), New: r.Rule}
			ch.Impact, ch.Message = newRuleImpact(n, oldRules, r,
				"a new rule on an existing field: stored objects it rejects fail their next update (unless it ratchets on unchanged values)",
				"a new rule no stored object can fail")
			out = append(out, ch)
		}
		for _, r := range removed {
			out = append(out, Change{Impact: Info, Path: path.String(), Old: r.Rule,
				Message: "the rule no longer applies: values it rejected are now accepted"})
		}
		// Same rules, other messages, reasons or field paths.
		for _, r := range newRules {
			i := slices.IndexFunc(oldRules, sameRule(r))
			if i >= 0 && render(oldRules[i], true) != render(r, true) {
				out = append(out, Change{Impact: Info, Path: rulePath(path, newRules, r), Old: render(oldRules[i], true), New: render(r, true),
					Message: "the same rule reports differently (message, reason or field path)"})
			}
		}
		return out
	},
}

// newRuleImpact classifies a new or rewritten rule: breaking, unless every
// object valid under the old schema passes it (rule_proof.go), which is
// then said with the facts that show it.
func newRuleImpact(n *Node, oldRules []apiextensionsv1.ValidationRule, r apiextensionsv1.ValidationRule, breaking, compatible string) (Impact, string) {
	rule := parseRule(r.Rule)
	if ok, why := holdsOnStored(n, rule); ok {
		if len(why) > 0 {
			compatible += ": " + whyText(why)
		}
		return Info, compatible
	}
	if impliedByOld(n, oldRules, rule) {
		return Info, compatible + ": the old rules of this field imply it"
	}
	return Breaking, breaking + "; crdguard diff --objects replays the stored objects to decide"
}

func sameRule(r apiextensionsv1.ValidationRule) func(apiextensionsv1.ValidationRule) bool {
	return func(o apiextensionsv1.ValidationRule) bool { return o.Rule == r.Rule }
}

// rulePath points at a rule of the new schema by its index.
func rulePath(path *field.Path, rules []apiextensionsv1.ValidationRule, r apiextensionsv1.ValidationRule) string {
	return path.Index(slices.IndexFunc(rules, sameRule(r))).String()
}
