package diff

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// bound is one numeric limit of a schema node, as a comparable number.
type bound struct {
	keyword string
	value   func(*apiextensionsv1.JSONSchemaProps) (float64, string, bool)
}

func floatBound(keyword string, get func(*apiextensionsv1.JSONSchemaProps) *float64) bound {
	return bound{keyword, func(s *apiextensionsv1.JSONSchemaProps) (float64, string, bool) {
		if f := get(s); f != nil {
			return *f, floatText(f), true
		}
		return 0, "", false
	}}
}

func intBound(keyword string, get func(*apiextensionsv1.JSONSchemaProps) *int64) bound {
	return bound{keyword, func(s *apiextensionsv1.JSONSchemaProps) (float64, string, bool) {
		if i := get(s); i != nil {
			return float64(*i), intText(i), true
		}
		return 0, "", false
	}}
}

// compareBounds reports each bound that was added or tightened as
// breaking and each that was loosened or dropped as info. upper says which
// direction tightens: lowering an upper bound, raising a lower one.
func compareBounds(n *Node, upper bool, bounds []bound) []Change {
	var out []Change
	for _, b := range bounds {
		ov, os, oldOK := b.value(n.Old)
		nv, ns, newOK := b.value(n.New)
		if oldOK == newOK && ov == nv {
			continue
		}
		tighter := newOK && (!oldOK || (upper && nv < ov) || (!upper && nv > ov))
		ch := Change{Impact: Info, Path: n.Path.Child(b.keyword).String(), Old: os, New: ns,
			Message: "the limit is looser: everything valid before stays valid"}
		if tighter {
			ch.Impact = Breaking
			ch.Message = "stored values beyond the new limit are rejected on their next update unless left unchanged (ratcheting)"
		}
		out = append(out, ch)
	}
	return out
}

// compareExclusive reports an exclusive flag turned on (the bound itself is
// no longer allowed) as breaking.
func compareExclusive(n *Node, keyword string, get func(*apiextensionsv1.JSONSchemaProps) bool) []Change {
	return compareToggle(n, keyword, get(n.Old), get(n.New),
		Change{Impact: Breaking, Message: "stored values equal to the bound are rejected on their next update unless left unchanged (ratcheting)"},
		Change{Impact: Info, Message: "the bound itself is now allowed"})
}
