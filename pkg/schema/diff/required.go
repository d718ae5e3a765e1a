package diff

var requiredChanged = Check{
	Name:   "required-changed",
	Doc:    "a property became required (or optional)",
	Claims: []string{"required"},
	Property: func(n *Node) []Change {
		var out []Change
		path := n.Path.Child("required").String()
		removed, added, reordered := compareLists(n.Old.Required, n.New.Required)
		for _, name := range added {
			ch := Change{Impact: Breaking, Path: path, New: name,
				Message: "objects without it are rejected on their next update and creates that omit it fail"}
			if s, ok := n.New.Properties[name]; ok && s.Default != nil {
				// The server fills the default before validating.
				ch.Impact = Info
				ch.Message = "required but defaulted: objects without it get the default"
			}
			out = append(out, ch)
		}
		for _, name := range removed {
			out = append(out, Change{Impact: Info, Path: path, Old: name,
				Message: "now optional: clients reading it must handle its absence"})
		}
		if reordered {
			out = append(out, Change{Impact: Info, Path: path, Old: render(n.Old.Required, true), New: render(n.New.Required, true),
				Message: "the same fields in a different order"})
		}
		return out
	},
}
