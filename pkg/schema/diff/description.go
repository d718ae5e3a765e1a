package diff

// shortTextRunes is the length up to which a changed text reads best as
// "old → new"; past it, both sides are shown as the words that changed.
const shortTextRunes = 60

var descriptionChanged = Check{
	Name:   "description-changed",
	Doc:    "documentation changed: description, title, example or externalDocs",
	Claims: []string{"description", "title", "example", "externalDocs"},
	Property: func(n *Node) []Change {
		var out []Change
		add := func(keyword, old, new string) {
			if old == new {
				return
			}
			ch := Change{Impact: Info, Path: n.Path.Child(keyword).String(), Old: old, New: new,
				Message: "documentation only (kubectl explain)"}
			// Descriptions run to pages, and two excerpts of the same
			// opening would hide what changed.
			if old != "" && new != "" && (len([]rune(old)) > shortTextRunes || len([]rune(new)) > shortTextRunes) {
				ch.Words = wordDiff(old, new)
			}
			out = append(out, ch)
		}
		add("description", n.Old.Description, n.New.Description)
		add("title", n.Old.Title, n.New.Title)
		add("example", jsonText(n.Old.Example), jsonText(n.New.Example))
		add("externalDocs", render(n.Old.ExternalDocs, n.Old.ExternalDocs != nil), render(n.New.ExternalDocs, n.New.ExternalDocs != nil))
		return out
	},
}
