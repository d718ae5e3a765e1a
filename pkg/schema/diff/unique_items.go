package diff

var uniqueItemsChanged = Check{
	Name:   "unique-items-changed",
	Doc:    "uniqueItems was turned on (breaking) or off (info)",
	Claims: []string{"uniqueItems"},
	Property: func(n *Node) []Change {
		if n.Old.UniqueItems == n.New.UniqueItems {
			return nil
		}
		ch := Change{Impact: Info, Path: n.Path.Child("uniqueItems").String(), Old: boolText(n.Old.UniqueItems), New: boolText(n.New.UniqueItems),
			Message: "duplicates are now allowed"}
		if n.New.UniqueItems {
			ch.Impact = Breaking
			ch.Message = "stored lists with duplicates are rejected on their next update"
		}
		return []Change{ch}
	},
}
