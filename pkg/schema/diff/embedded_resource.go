package diff

var embeddedResourceChanged = Check{
	Name:   "embedded-resource-changed",
	Doc:    "x-kubernetes-embedded-resource was toggled",
	Claims: []string{"x-kubernetes-embedded-resource"},
	// Both directions break: on, the value must now carry apiVersion, kind
	// and valid metadata; off, its metadata is pruned as unknown unless
	// declared.
	Property: func(n *Node) []Change {
		return compareToggle(n, "x-kubernetes-embedded-resource", n.Old.XEmbeddedResource, n.New.XEmbeddedResource,
			Change{Impact: Breaking, Message: "stored values without apiVersion, kind and valid metadata are rejected on their next update"},
			Change{Impact: Breaking, Message: "apiVersion, kind and metadata of the embedded object are no longer implied: undeclared ones are pruned on the next write"})
	},
}
