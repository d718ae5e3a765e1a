package diff

var uniqueItemsChanged = Check{
	Name:   "unique-items-changed",
	Doc:    "uniqueItems was turned on (breaking) or off (info)",
	Claims: []string{"uniqueItems"},
	Property: func(n *Node) []Change {
		return compareToggle(n, "uniqueItems", n.Old.UniqueItems, n.New.UniqueItems,
			Change{Impact: Breaking, Message: "stored lists with duplicates are rejected on their next update"},
			Change{Impact: Info, Message: "duplicates are now allowed"})
	},
}
