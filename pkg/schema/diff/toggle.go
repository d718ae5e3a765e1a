package diff

// compareToggle classifies a boolean keyword that was turned on or off:
// on and off give the impact and message of each direction.
func compareToggle(n *Node, keyword string, old, new bool, on, off Change) []Change {
	if old == new {
		return nil
	}
	ch := off
	if new {
		ch = on
	}
	ch.Path, ch.Old, ch.New = n.Path.Child(keyword).String(), boolText(old), boolText(new)
	return []Change{ch}
}
