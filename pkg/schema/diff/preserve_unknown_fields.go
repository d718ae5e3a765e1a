package diff

var preserveUnknownFieldsChanged = Check{
	Name:   "preserve-unknown-fields-changed",
	Doc:    "x-kubernetes-preserve-unknown-fields was removed (breaking) or added (info)",
	Claims: []string{"x-kubernetes-preserve-unknown-fields"},
	Property: func(n *Node) []Change {
		o, nw := n.Old.XPreserveUnknownFields != nil && *n.Old.XPreserveUnknownFields, n.New.XPreserveUnknownFields != nil && *n.New.XPreserveUnknownFields
		if o == nw {
			if (n.Old.XPreserveUnknownFields == nil) != (n.New.XPreserveUnknownFields == nil) {
				return []Change{{Impact: Info, Path: n.Path.Child("x-kubernetes-preserve-unknown-fields").String(),
					Old: render(n.Old.XPreserveUnknownFields, n.Old.XPreserveUnknownFields != nil), New: render(n.New.XPreserveUnknownFields, n.New.XPreserveUnknownFields != nil),
					Message: "false either way: no change of behaviour"}}
			}
			return nil
		}
		return compareToggle(n, "x-kubernetes-preserve-unknown-fields", o, nw,
			Change{Impact: Info, Message: "fields the schema does not declare are now kept instead of pruned"},
			Change{Impact: Breaking, Message: "stored data in fields the schema does not declare is pruned on the next write of each object"})
	},
}
