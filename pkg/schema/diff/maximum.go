package diff

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

var maximumChanged = Check{
	Name:   "maximum-changed",
	Doc:    "maximum, exclusiveMaximum, maxLength, maxItems or maxProperties added or lowered (breaking), raised or removed (info)",
	Claims: []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"},
	Property: func(n *Node) []Change {
		out := compareBounds(n, true, []bound{
			floatBound("maximum", func(s *apiextensionsv1.JSONSchemaProps) *float64 { return s.Maximum }),
			intBound("maxLength", func(s *apiextensionsv1.JSONSchemaProps) *int64 { return s.MaxLength }),
			intBound("maxItems", func(s *apiextensionsv1.JSONSchemaProps) *int64 { return s.MaxItems }),
			intBound("maxProperties", func(s *apiextensionsv1.JSONSchemaProps) *int64 { return s.MaxProperties }),
		})
		return append(out, compareExclusive(n, "exclusiveMaximum", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.ExclusiveMaximum })...)
	},
}
