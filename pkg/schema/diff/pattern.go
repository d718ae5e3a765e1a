package diff

var patternChanged = Check{
	Name:   "pattern-changed",
	Doc:    "a pattern was added or changed (breaking) or removed (info)",
	Claims: []string{"pattern"},
	Property: func(n *Node) []Change {
		return compareConstraint(n, "pattern", n.Old.Pattern, n.New.Pattern,
			"stored values not matching the new pattern are rejected on their next update unless left unchanged (ratcheting)")
	},
}

// compareConstraint classifies a string-valued constraint: added or changed
// narrows what is valid (breaking), removed widens it (info).
func compareConstraint(n *Node, keyword, old, new, consequence string) []Change {
	if old == new {
		return nil
	}
	ch := Change{Impact: Breaking, Path: n.Path.Child(keyword).String(), Old: old, New: new, Message: consequence}
	if new == "" {
		ch.Impact = Info
		ch.Message = "the constraint is gone: everything valid before stays valid"
	}
	return []Change{ch}
}
