package diff

var enumValueRemoved = Check{
	Name:   "enum-value-removed",
	Doc:    "an allowed enum value is no longer allowed",
	Claims: []string{"enum"},
	Property: func(n *Node) []Change {
		if len(n.Old.Enum) == 0 || len(n.New.Enum) == 0 {
			return nil // enum-introduced
		}
		var out []Change
		allowed := enumSet(n.New)
		for _, v := range enumValues(n.Old) {
			if !allowed[v] {
				out = append(out, Change{Impact: Breaking, Path: n.Path.Child("enum").String(), Old: v,
					Message: "objects holding this value are rejected on their next update unless it is left unchanged (ratcheting)"})
			}
		}
		return out
	},
}
