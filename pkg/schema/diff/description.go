package diff

// descriptionRunes is how much of a changed description a report shows.
const descriptionRunes = 60

var descriptionChanged = Check{
	Name:   "description-changed",
	Doc:    "documentation changed: description, title, example or externalDocs",
	Claims: []string{"description", "title", "example", "externalDocs"},
	Property: func(n *Node) []Change {
		var out []Change
		add := func(keyword, old, new string) {
			if old != new {
				// Descriptions run to pages: an excerpt says which one changed.
				out = append(out, Change{Impact: Info, Path: n.Path.Child(keyword).String(), Old: oneLine(old, descriptionRunes), New: oneLine(new, descriptionRunes),
					Message: "documentation only (kubectl explain)"})
			}
		}
		add("description", n.Old.Description, n.New.Description)
		add("title", n.Old.Title, n.New.Title)
		add("example", jsonText(n.Old.Example), jsonText(n.New.Example))
		add("externalDocs", render(n.Old.ExternalDocs, n.Old.ExternalDocs != nil), render(n.New.ExternalDocs, n.New.ExternalDocs != nil))
		return out
	},
}
