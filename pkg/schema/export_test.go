package schema

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FastSchemaVerdict evaluates value with v's compiled schema check and with
// kube-openapi's validator alone: whether the check accepts it for certain,
// and the errors upstream reports.
func FastSchemaVerdict(v *Validator, value any) (fastValid bool, upstreamErrs []error) {
	return v.fastSchema.check.eval(value) == valid, v.fastSchema.upstream.Validate(value).Errors
}

// FastSchemaDecided tells whether v's compiled schema check gives value a
// definite answer, valid or invalid.
func FastSchemaDecided(v *Validator, value any) bool {
	return v.fastSchema.check.eval(value) != unknown
}

// Decode is decode, as Validate runs it, on u in place.
func Decode(v *Validator, u *unstructured.Unstructured) ([]string, *field.Error) {
	return v.decode(u)
}

// DecodeUnskipped is decode without its skips, on u in place: every
// upstream walk on the whole schema, in the API server's order.
func DecodeUnskipped(v *Validator, u *unstructured.Unstructured) ([]string, *field.Error) {
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, field.Invalid(field.NewPath("metadata"), u.Object["metadata"], err.Error())
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
	fieldErr, embeddedUnknown := schemaobjectmeta.CoerceWithOptions(nil, u.Object, v.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if fieldErr != nil {
		return nil, fieldErr
	}
	unknown = append(unknown, embeddedUnknown...)
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, field.Invalid(field.NewPath("metadata"), u.Object["metadata"], err.Error())
		}
	}
	structuraldefaulting.Default(u.Object, v.structural)
	return unknown, nil
}

// ApplyDefaults is the defaulting decode and DryRun run, on obj in place.
func ApplyDefaults(v *Validator, obj map[string]any) {
	v.applyDefaults(obj)
}

// DefaultUnskipped is upstream's defaulting with the whole schema.
func DefaultUnskipped(v *Validator, obj map[string]any) {
	structuraldefaulting.Default(obj, v.structural)
}

// WalkSchemas are the trimmed schemas decode gives upstream's defaulting
// and embedded-resource coercion; nil for a walk it skips.
func WalkSchemas(v *Validator) (defaulting, coercion *structuralschema.Structural) {
	walks := v.walkSchemas()
	return walks.defaulting, walks.coercion
}
