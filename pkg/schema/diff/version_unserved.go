package diff

import "strconv"

var versionUnserved = Check{
	Name:   "version-unserved",
	Doc:    "a version stopped (or started) being served",
	Claims: []string{"spec.versions.*.served"},
	CRD: func(p *CRDPair) []Change {
		var out []Change
		for _, v := range p.CommonVersions() {
			if v.Old.Served == v.New.Served {
				continue
			}
			ch := Change{
				Impact: Info, Version: v.Name, Path: v.Path.Child("served").String(),
				Old: strconv.FormatBool(v.Old.Served), New: strconv.FormatBool(v.New.Served),
				Message: "the version is served again",
			}
			if !v.New.Served {
				ch.Impact = Breaking
				ch.Message = "clients using this version get 404 although its objects still exist"
			}
			out = append(out, ch)
		}
		return out
	},
}
