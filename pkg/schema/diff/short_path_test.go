package diff

import "testing"

func TestShortPath(t *testing.T) {
	for _, tc := range []struct{ name, path, want string }{
		{"validation rule in list items", "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.rules.items.properties.filters.items.x-kubernetes-validations[12]",
			"^.spec.rules[*].filters[*]/x-kubernetes-validations[12]"},
		{"property", "spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.replicas", "^.spec.replicas"},
		{"keyword of a property", "spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.type.enum", "^.spec.type/enum"},
		{"map values", "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.labels.additionalProperties.maxLength", "^.spec.labels[*]/maxLength"},
		{"property with a dot", "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties[a.b].default", "^.spec[a.b]/default"},
		{"property named like a keyword", "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.items.properties.enum", "^.spec.items.enum"},
		{"schema root", "spec.versions[0].schema.openAPIV3Schema", "^"},
		{"keyword of the root", "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0]", "^/x-kubernetes-validations[0]"},
		{"unclassified sub-schema", "spec.versions[0].schema.openAPIV3Schema.properties.spec.allOf", "^.spec/allOf"},
		{"CRD level", "spec.versions[1].served", "spec.versions[1].served"},
		{"whole schema", "spec.versions[1].schema", "spec.versions[1].schema"},
		{"names", "spec.names.shortNames", "spec.names.shortNames"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ShortPath(tc.path); got != tc.want {
				t.Errorf("ShortPath(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}
