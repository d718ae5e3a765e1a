package diff

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

var fieldRemoved = Check{
	Name: "field-removed",
	Doc:  "a property of the old schema is gone",
	Property: func(n *Node) []Change {
		var out []Change
		for _, name := range sortedKeys(n.Old.Properties) {
			if _, ok := n.New.Properties[name]; ok {
				continue
			}
			old := n.Old.Properties[name]
			ch := Change{Impact: Breaking, Path: propertyPath(n.Path, name).String(), Old: typeName(&old),
				Message: "the API server prunes it from stored objects on their next write, and clients setting it lose it silently"}
			// A parent that keeps unknown fields still stores the value;
			// it is only no longer validated.
			if n.New.XPreserveUnknownFields != nil && *n.New.XPreserveUnknownFields {
				ch.Impact = Warning
				ch.Message = "no longer validated, but still stored: the parent keeps unknown fields"
			}
			out = append(out, ch)
		}
		return out
	},
}

// typeName describes a schema in a word, for the old or new value of a
// property that exists on one side only.
func typeName(s *apiextensionsv1.JSONSchemaProps) string {
	switch {
	case s.Type != "":
		return s.Type
	case s.XIntOrString:
		return "int-or-string"
	}
	return "any"
}
