package diff

import "strconv"

var deprecationChanged = Check{
	Name:   "deprecation-changed",
	Doc:    "a version was deprecated or its deprecation warning changed",
	Claims: []string{"spec.versions.*.deprecated", "spec.versions.*.deprecationWarning"},
	CRD: func(p *CRDPair) []Change {
		var out []Change
		for _, v := range p.CommonVersions() {
			if v.Old.Deprecated != v.New.Deprecated {
				out = append(out, Change{Impact: Info, Version: v.Name, Path: v.Path.Child("deprecated").String(),
					Old: strconv.FormatBool(v.Old.Deprecated), New: strconv.FormatBool(v.New.Deprecated),
					Message: "clients of this version get (or stop getting) a deprecation warning on every request"})
			}
			o, n := v.Old.DeprecationWarning, v.New.DeprecationWarning
			if (o == nil) != (n == nil) || (o != nil && *o != *n) {
				out = append(out, Change{Impact: Info, Version: v.Name, Path: v.Path.Child("deprecationWarning").String(),
					Old: deref(o), New: deref(n), Message: "clients see a different deprecation warning"})
			}
		}
		return out
	},
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
