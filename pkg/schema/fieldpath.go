package schema

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// KeyPath is parent's step into the map key or property name key. A key
// that is empty or holds field-path punctuation (".", "[", "]") goes in
// brackets, so that readers of the path, manifest.FieldPositions among
// them, take it as one step; any other key reads as a field name. parent
// may be nil, for a key at the root.
func KeyPath(parent *field.Path, key string) *field.Path {
	if key == "" || strings.ContainsAny(key, ".[]") {
		return parent.Key(key)
	}
	return parent.Child(key)
}
