package diff

var formatChanged = Check{
	Name:   "format-changed",
	Doc:    "a format was added or changed (breaking) or removed (info)",
	Claims: []string{"format"},
	Property: func(n *Node) []Change {
		return compareConstraint(n, "format", n.Old.Format, n.New.Format,
			"stored values not in the new format are rejected on their next update unless left unchanged (ratcheting); clients may parse the field differently")
	},
}
