package diff

import (
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// The checks on sets of CRDs are neither CRD nor property checks: the
// caller matches CRDs by name with MatchCRDs and reports these itself.
var (
	CRDRemoved = Check{Name: "crd-removed", Doc: "a CRD of the old set is missing from the new one"}
	CRDAdded   = Check{Name: "crd-added", Doc: "the new set has a CRD the old one lacks"}

	additionalChecks = registerNames(CRDRemoved, CRDAdded)
)

func registerNames(checks ...Check) []Check {
	for _, c := range checks {
		if names[c.Name] {
			panic(fmt.Sprintf("diff: check %q registered twice", c.Name))
		}
		names[c.Name] = true
	}
	return checks
}

// Pair is an old and a new CRD of the same name; one is nil when the CRD
// exists on one side only.
type Pair struct {
	Name     string
	Old, New *apiextensionsv1.CustomResourceDefinition
}

// MatchCRDs pairs CRDs by name, sorted by name.
func MatchCRDs(old, new []*apiextensionsv1.CustomResourceDefinition) []Pair {
	byName := map[string]*Pair{}
	for _, c := range old {
		byName[c.Name] = &Pair{Name: c.Name, Old: c}
	}
	for _, c := range new {
		if p, ok := byName[c.Name]; ok {
			p.New = c
		} else {
			byName[c.Name] = &Pair{Name: c.Name, New: c}
		}
	}
	out := make([]Pair, 0, len(byName))
	for _, p := range byName {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Compare classifies the pair: a CRD on one side only is one change, a CRD
// on both sides is compared with Compare.
func (p Pair) Compare() ([]Change, error) {
	switch {
	case p.New == nil:
		return []Change{{Check: CRDRemoved.Name, Impact: Breaking, CRD: p.Name, Path: "metadata.name", Old: p.Name,
			Message: "applying the new set does not delete the CRD, but whatever prunes it deletes every stored object of its kind"}}, nil
	case p.Old == nil:
		return []Change{{Check: CRDAdded.Name, Impact: Info, CRD: p.Name, Path: "metadata.name", New: p.Name,
			Message: "a new CRD; nothing existing is affected"}}, nil
	}
	return Compare(p.Old, p.New)
}
