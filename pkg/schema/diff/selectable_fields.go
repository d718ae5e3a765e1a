package diff

var selectableFieldsChanged = Check{
	Name:   "selectable-fields-changed",
	Doc:    "selectableFields changed (breaking when one disappears)",
	Claims: []string{"spec.versions.*.selectableFields"},
	CRD: func(p *CRDPair) []Change {
		var out []Change
		for _, v := range p.CommonVersions() {
			var oldPaths, newPaths []string
			for _, f := range v.Old.SelectableFields {
				oldPaths = append(oldPaths, f.JSONPath)
			}
			for _, f := range v.New.SelectableFields {
				newPaths = append(newPaths, f.JSONPath)
			}
			path := v.Path.Child("selectableFields").String()
			removed, added, reordered := compareLists(oldPaths, newPaths)
			for _, f := range removed {
				out = append(out, Change{Impact: Breaking, Version: v.Name, Path: path, Old: f,
					Message: "list and watch requests selecting on this field now fail"})
			}
			for _, f := range added {
				out = append(out, Change{Impact: Info, Version: v.Name, Path: path, New: f,
					Message: "clients can now select on this field"})
			}
			if reordered {
				out = append(out, Change{Impact: Info, Version: v.Name, Path: path, Old: render(oldPaths, true), New: render(newPaths, true),
					Message: "the same fields in a different order"})
			}
		}
		return out
	},
}
