package diff

var intOrStringChanged = Check{
	Name:   "int-or-string-changed",
	Doc:    "x-kubernetes-int-or-string was removed (breaking) or added (info)",
	Claims: []string{"x-kubernetes-int-or-string"},
	Property: func(n *Node) []Change {
		if n.Old.XIntOrString == n.New.XIntOrString {
			return nil
		}
		ch := Change{Impact: Info, Path: n.Path.Child("x-kubernetes-int-or-string").String(), Old: boolText(n.Old.XIntOrString), New: boolText(n.New.XIntOrString),
			Message: "both integers and strings are accepted now; typed clients must decode either"}
		if !n.New.XIntOrString {
			ch.Impact = Breaking
			ch.Message = "stored values of the type no longer accepted are rejected on their next update, and typed clients fail to decode them"
		}
		return []Change{ch}
	},
}
