package diff

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var nameAliasesChanged = Check{
	Name:   "name-aliases-changed",
	Doc:    "shortNames or categories changed",
	Claims: []string{"spec.names.shortNames", "spec.names.categories"},
	CRD: func(p *CRDPair) []Change {
		o, n := p.Old.Spec.Names, p.New.Spec.Names
		names := field.NewPath("spec", "names")
		var out []Change
		if !slices.Equal(o.ShortNames, n.ShortNames) {
			out = append(out, Change{Impact: Info, Path: names.Child("shortNames").String(),
				Old: strings.Join(o.ShortNames, ","), New: strings.Join(n.ShortNames, ","),
				Message: "kubectl shorthands change; scripts using a removed one need the full name"})
		}
		if !slices.Equal(o.Categories, n.Categories) {
			out = append(out, Change{Impact: Info, Path: names.Child("categories").String(),
				Old: strings.Join(o.Categories, ","), New: strings.Join(n.Categories, ","),
				Message: "`kubectl get <category>` lists a different set of kinds"})
		}
		return out
	},
}
