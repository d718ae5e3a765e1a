package diff

var versionRemoved = Check{
	Name:   "version-removed",
	Doc:    "a version of the old CRD is gone",
	Claims: []string{"spec.versions.*?"},
	CRD: func(p *CRDPair) []Change {
		var out []Change
		for _, v := range p.Old.Spec.Versions {
			if nv, _ := p.NewVersion(v.Name); nv == nil {
				out = append(out, Change{
					Impact: Breaking, Version: v.Name, Path: p.VersionPath(v.Name).String(),
					Old:     v.Name,
					Message: "clients using this version get 404 and manifests naming it fail to apply",
				})
			}
		}
		return out
	},
}
