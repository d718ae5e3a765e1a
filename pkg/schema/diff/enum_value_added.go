package diff

var enumValueAdded = Check{
	Name: "enum-value-added",
	Doc:  "an enum gained a value (Config.EnumValueAdded sets how much that matters)",
	// Warning rather than Info by default: a client or controller written
	// against the old values may not handle the new one.
	Claims: []string{"enum"},
	Property: func(n *Node) []Change {
		if len(n.Old.Enum) == 0 || len(n.New.Enum) == 0 {
			return nil // enum-introduced
		}
		var out []Change
		oldValues, newValues := enumValues(n.Old), enumValues(n.New)
		// Removed values are enum-value-removed's.
		_, added, reordered := compareLists(oldValues, newValues)
		for _, v := range added {
			out = append(out, Change{Impact: Warning, Path: n.Path.Child("enum").String(), New: v,
				Message: "clients and controllers written against the old values may not handle the new one"})
		}
		if reordered {
			// Same values, another order or repeats: nothing changes, but
			// every difference is reported.
			out = append(out, Change{Impact: Info, Path: n.Path.Child("enum").String(), Old: render(oldValues, true), New: render(newValues, true),
				Message: "the same values in a different order"})
		}
		return out
	},
}
