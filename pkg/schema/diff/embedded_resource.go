package diff

var embeddedResourceChanged = Check{
	Name:   "embedded-resource-changed",
	Doc:    "x-kubernetes-embedded-resource was toggled",
	Claims: []string{"x-kubernetes-embedded-resource"},
	Property: func(n *Node) []Change {
		if n.Old.XEmbeddedResource == n.New.XEmbeddedResource {
			return nil
		}
		// Both directions break: on, the value must now carry apiVersion,
		// kind and valid metadata; off, its metadata is pruned as unknown
		// unless declared.
		ch := Change{Impact: Breaking, Path: n.Path.Child("x-kubernetes-embedded-resource").String(), Old: boolText(n.Old.XEmbeddedResource), New: boolText(n.New.XEmbeddedResource),
			Message: "stored values without apiVersion, kind and valid metadata are rejected on their next update"}
		if !n.New.XEmbeddedResource {
			ch.Message = "apiVersion, kind and metadata of the embedded object are no longer implied: undeclared ones are pruned on the next write"
		}
		return []Change{ch}
	},
}
