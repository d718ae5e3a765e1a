package diff

var typeChanged = Check{
	Name:   "type-changed",
	Doc:    "a property's type changed",
	Claims: []string{"type"},
	Property: func(n *Node) []Change {
		if n.Old.Type == n.New.Type {
			return nil
		}
		ch := Change{Impact: Breaking, Path: n.Path.Child("type").String(), Old: n.Old.Type, New: n.New.Type,
			Message: "stored values of the old type fail validation on their next update, and typed clients fail to decode"}
		if n.New.Type == "" {
			// Only int-or-string and preserve-unknown-fields nodes may lack a
			// type: the node accepts more than before.
			ch.Impact = Info
			ch.Message = "the type constraint is gone: the field accepts more than before"
		}
		return []Change{ch}
	},
}
