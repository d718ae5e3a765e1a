package diff

var nullableChanged = Check{
	Name:   "nullable-changed",
	Doc:    "nullable was turned off (breaking) or on (info)",
	Claims: []string{"nullable"},
	Property: func(n *Node) []Change {
		if n.Old.Nullable == n.New.Nullable {
			return nil
		}
		ch := Change{Impact: Info, Path: n.Path.Child("nullable").String(), Old: boolText(n.Old.Nullable), New: boolText(n.New.Nullable),
			Message: "null is now accepted and stored; clients reading the field must handle it"}
		if !n.New.Nullable {
			ch.Impact = Breaking
			ch.Message = "null is no longer stored: the server prunes it (or applies the default), and clients sending null lose the distinction"
		}
		return []Change{ch}
	},
}
