package schema

import (
	"reflect"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// fieldUse is what the fast check does with one field of spec.Schema.
type fieldUse uint8

const (
	// fieldChecked: the fast check evaluates the keyword.
	fieldChecked fieldUse = iota + 1
	// fieldInert: kube-openapi's validator does not read the field.
	fieldInert
	// fieldRefused: a schema that sets it answers unknown.
	fieldRefused
)

// schemaFields is the allowlist: every field of spec.Schema, including
// those of its embedded structs, by Go name. A field not listed, which a
// kube-openapi upgrade may add, is refused, and TestSchemaFieldCensus
// fails until it is classified here.
var schemaFields = map[string]fieldUse{
	// VendorExtensible: the x-kubernetes-* extensions, read by pruning,
	// defaulting and CEL, never by kube-openapi's validator.
	"Extensions": fieldInert,

	// SchemaProps.
	"ID":                   fieldInert,
	"Ref":                  fieldRefused, // kube-openapi panics on references
	"Schema":               fieldRefused,
	"Description":          fieldInert,
	"Type":                 fieldChecked,
	"Nullable":             fieldChecked, // null is always unknown
	"Format":               fieldChecked,
	"Title":                fieldInert,
	"Default":              fieldInert,
	"Maximum":              fieldChecked,
	"ExclusiveMaximum":     fieldChecked,
	"Minimum":              fieldChecked,
	"ExclusiveMinimum":     fieldChecked,
	"MaxLength":            fieldChecked,
	"MinLength":            fieldChecked,
	"Pattern":              fieldChecked,
	"MaxItems":             fieldChecked,
	"MinItems":             fieldChecked,
	"UniqueItems":          fieldChecked,
	"MultipleOf":           fieldChecked,
	"Enum":                 fieldChecked,
	"MaxProperties":        fieldChecked,
	"MinProperties":        fieldChecked,
	"Required":             fieldChecked,
	"Items":                fieldChecked, // a single schema; tuples are refused
	"AllOf":                fieldChecked,
	"OneOf":                fieldChecked,
	"AnyOf":                fieldChecked,
	"Not":                  fieldChecked,
	"Properties":           fieldChecked,
	"AdditionalProperties": fieldChecked,
	"PatternProperties":    fieldRefused,
	"Dependencies":         fieldRefused,
	"AdditionalItems":      fieldRefused,
	"Definitions":          fieldRefused, // only $ref reads them

	// SwaggerSchemaProps.
	"Discriminator": fieldRefused,
	"ReadOnly":      fieldRefused,
	"ExternalDocs":  fieldInert,
	"Example":       fieldInert,

	// Schema.
	"ExtraProps": fieldRefused,
}

// fieldsSupported tells whether s sets only fields the fast check
// evaluates or kube-openapi ignores.
func fieldsSupported(s *spec.Schema) bool {
	ok := true
	walkSchemaFields(reflect.ValueOf(s).Elem(), func(name string, v reflect.Value) {
		if use := schemaFields[name]; use != fieldChecked && use != fieldInert && !v.IsZero() {
			ok = false
		}
	})
	return ok
}

// walkSchemaFields calls f with every field of the struct v, descending
// into embedded structs.
func walkSchemaFields(v reflect.Value, f func(name string, v reflect.Value)) {
	t := v.Type()
	for i := range t.NumField() {
		field := t.Field(i)
		if field.Anonymous && field.Type.Kind() == reflect.Struct {
			walkSchemaFields(v.Field(i), f)
			continue
		}
		f(field.Name, v.Field(i))
	}
}
