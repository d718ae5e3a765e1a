package diff

var fieldAdded = Check{
	Name: "field-added",
	Doc:  "the new schema has a property the old one lacks",
	Property: func(n *Node) []Change {
		var out []Change
		for _, name := range sortedKeys(n.New.Properties) {
			if _, ok := n.Old.Properties[name]; ok {
				continue
			}
			s := n.New.Properties[name]
			out = append(out, Change{Impact: Info, Path: propertyPath(n.Path, name).String(), New: typeName(&s),
				Message: "a new optional field; values clients sent for it before were pruned, now they are kept"})
		}
		return out
	},
}
