package diff

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

var additionalPropertiesChanged = Check{
	Name: "additional-properties-changed",
	Doc:  "additionalProperties narrowed (breaking) or widened (info); a schema on both sides is compared node by node",
	// The runner removes additionalProperties from the node when both sides
	// hold a schema (it walks into it); what is left here is a change of
	// kind: a schema, true, false or nothing.
	Claims: []string{"additionalProperties"},
	Property: func(n *Node) []Change {
		o, nw := n.Old.AdditionalProperties, n.New.AdditionalProperties
		if o != nil && nw != nil && o.Schema != nil && nw.Schema != nil {
			return nil
		}
		oldText, newText := render(o, o != nil), render(nw, nw != nil)
		if oldText == newText {
			return nil
		}
		ch := Change{Impact: Info, Path: n.Path.Child("additionalProperties").String(), Old: oldText, New: newText,
			Message: "the map accepts more than before"}
		if allowsMap(o) && !allowsMap(nw) || (o != nil && o.Schema == nil && o.Allows && nw != nil && nw.Schema != nil) {
			ch.Impact = Breaking
			ch.Message = "stored map entries the new schema does not allow are pruned or rejected on their next write"
		}
		return []Change{ch}
	},
}

// allowsMap tells whether additionalProperties lets arbitrary keys in.
func allowsMap(a *apiextensionsv1.JSONSchemaPropsOrBool) bool {
	return a != nil && (a.Schema != nil || a.Allows)
}
