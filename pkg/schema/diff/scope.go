package diff

var scopeChanged = Check{
	Name:   "scope-changed",
	Doc:    "the CRD's scope changed between Namespaced and Cluster",
	Claims: []string{"spec.scope"},
	CRD: func(p *CRDPair) []Change {
		if p.Old.Spec.Scope == p.New.Spec.Scope {
			return nil
		}
		// The server forbids the change outright; were it allowed, every
		// stored object's key would no longer match its scope.
		return []Change{{
			Impact: Breaking, Path: "spec.scope",
			Old: string(p.Old.Spec.Scope), New: string(p.New.Spec.Scope),
			Message: "kube-apiserver rejects a scope change of an existing CRD; stored objects would be unreachable at their old URLs",
		}}
	},
}
