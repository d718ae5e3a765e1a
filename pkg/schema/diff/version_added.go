package diff

var versionAdded = Check{
	Name:   "version-added",
	Doc:    "the new CRD has a version the old one lacks",
	Claims: []string{"spec.versions.*?"},
	CRD: func(p *CRDPair) []Change {
		var out []Change
		for _, v := range p.New.Spec.Versions {
			if ov, _ := p.OldVersion(v.Name); ov == nil {
				out = append(out, Change{
					Impact: Info, Version: v.Name, Path: p.VersionPath(v.Name).String(),
					New:     v.Name,
					Message: "a new version is available; existing clients are unaffected",
				})
			}
		}
		return out
	},
}
