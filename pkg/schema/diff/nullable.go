package diff

var nullableChanged = Check{
	Name:   "nullable-changed",
	Doc:    "nullable was turned off (breaking) or on (info)",
	Claims: []string{"nullable"},
	Property: func(n *Node) []Change {
		return compareToggle(n, "nullable", n.Old.Nullable, n.New.Nullable,
			Change{Impact: Info, Message: "null is now accepted and stored; clients reading the field must handle it"},
			Change{Impact: Breaking, Message: "null is no longer stored: the server prunes it (or applies the default), and clients sending null lose the distinction"})
	},
}
