package diff

import "k8s.io/apimachinery/pkg/util/validation/field"

var namesChanged = Check{
	Name:   "names-changed",
	Doc:    "kind, listKind, plural or singular changed",
	Claims: []string{"spec.names.kind", "spec.names.listKind", "spec.names.plural", "spec.names.singular"},
	CRD: func(p *CRDPair) []Change {
		o, n := p.Old.Spec.Names, p.New.Spec.Names
		names := field.NewPath("spec", "names")
		var out []Change
		for _, f := range []struct {
			name, old, new, consequence string
		}{
			{"kind", o.Kind, n.Kind, "clients, manifests and owner references naming the old kind break"},
			{"listKind", o.ListKind, n.ListKind, "typed clients decoding lists of the old kind break"},
			{"plural", o.Plural, n.Plural, "the resource URL changes: RBAC rules, clients and kubectl commands naming it break"},
			{"singular", o.Singular, n.Singular, "kubectl commands using the old singular name break"},
		} {
			if f.old != f.new {
				out = append(out, Change{Impact: Breaking, Path: names.Child(f.name).String(), Old: f.old, New: f.new, Message: f.consequence})
			}
		}
		return out
	},
}
