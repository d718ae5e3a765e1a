package diff

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

var minimumChanged = Check{
	Name:   "minimum-changed",
	Doc:    "minimum, exclusiveMinimum, minLength, minItems or minProperties added or raised (breaking), lowered or removed (info)",
	Claims: []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"},
	Property: func(n *Node) []Change {
		out := compareBounds(n, false, []bound{
			floatBound("minimum", func(s *apiextensionsv1.JSONSchemaProps) *float64 { return s.Minimum }),
			intBound("minLength", func(s *apiextensionsv1.JSONSchemaProps) *int64 { return s.MinLength }),
			intBound("minItems", func(s *apiextensionsv1.JSONSchemaProps) *int64 { return s.MinItems }),
			intBound("minProperties", func(s *apiextensionsv1.JSONSchemaProps) *int64 { return s.MinProperties }),
		})
		return append(out, compareExclusive(n, "exclusiveMinimum", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.ExclusiveMinimum })...)
	},
}
