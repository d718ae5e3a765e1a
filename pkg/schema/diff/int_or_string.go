package diff

var intOrStringChanged = Check{
	Name:   "int-or-string-changed",
	Doc:    "x-kubernetes-int-or-string was removed (breaking) or added (info)",
	Claims: []string{"x-kubernetes-int-or-string"},
	Property: func(n *Node) []Change {
		return compareToggle(n, "x-kubernetes-int-or-string", n.Old.XIntOrString, n.New.XIntOrString,
			Change{Impact: Info, Message: "both integers and strings are accepted now; typed clients must decode either"},
			Change{Impact: Breaking, Message: "stored values of the type no longer accepted are rejected on their next update, and typed clients fail to decode them"})
	},
}
