package diff

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

var formatChanged = Check{
	Name:   "format-changed",
	Doc:    "a format was added or changed (breaking when the API server checks values against it) or removed (info)",
	Claims: []string{"format"},
	Property: func(n *Node) []Change {
		changes := compareConstraint(n, "format", n.Old.Format, n.New.Format,
			"stored values not in the new format are rejected on their next update unless left unchanged (ratcheting); clients may parse the field differently")
		// The API server checks only a string's format, and only one it
		// supports: int64 → int32 on an integer rejects nothing.
		for i := range changes {
			if changes[i].Impact == Breaking && checkedFormat(n.Old) == checkedFormat(n.New) {
				changes[i].Impact = Warning
				changes[i].Message = "the API server does not check values against this format, so nothing stored is rejected; clients generated from the schema may read the field differently"
			}
		}
		return changes
	},
}

// checkedFormat is the format the API server validates s's values
// against: its own list of supported formats decides (others are
// dropped), and only strings are checked (an int-or-string's string
// values included).
func checkedFormat(s *apiextensionsv1.JSONSchemaProps) string {
	if s.Type != "" && s.Type != "string" {
		return ""
	}
	schema := &spec.Schema{SchemaProps: spec.SchemaProps{Format: s.Format}}
	if s.Type != "" {
		schema.Type = spec.StringOrArray{s.Type}
	}
	strip := apiservervalidation.StripUnsupportedFormatsPostProcessorForVersion(environment.DefaultCompatibilityVersion())
	if err := strip(schema); err != nil {
		return s.Format // cannot tell: keep it, so that the change stays breaking
	}
	return schema.Format
}
