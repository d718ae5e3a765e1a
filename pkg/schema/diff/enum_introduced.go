package diff

import "strings"

var enumIntroduced = Check{
	Name:   "enum-introduced",
	Doc:    "a free field got an enum (or an enum was lifted)",
	Claims: []string{"enum"},
	Property: func(n *Node) []Change {
		switch {
		case len(n.Old.Enum) == 0 && len(n.New.Enum) > 0:
			return []Change{{Impact: Breaking, Path: n.Path.Child("enum").String(), New: strings.Join(enumValues(n.New), ","),
				Message: "objects holding any other value are rejected on their next update unless it is left unchanged (ratcheting)"}}
		case len(n.Old.Enum) > 0 && len(n.New.Enum) == 0:
			return []Change{{Impact: Info, Path: n.Path.Child("enum").String(), Old: strings.Join(enumValues(n.Old), ","),
				Message: "any value is now allowed; clients that switch over the old values may meet new ones"}}
		}
		return nil
	},
}
