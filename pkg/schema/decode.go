package schema

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// unknownFieldOrigin marks unknown-field errors. The server has no field
// error for them (it fails decoding with a 400); they are Forbidden, which
// says what they mean: the field is not allowed here.
const unknownFieldOrigin = "crdguard.dev/unknown-field"

// decode does in place what the API server's custom resource decoder does
// after JSON decoding (the handler's unstructuredSchemaCoercer, then the
// codec's defaulter): read ObjectMeta, prune unknown fields and nulls,
// coerce embedded ObjectMeta, apply defaults. It returns the paths of the
// unknown fields it pruned, or an error when the server could not decode the
// object at all. It skips what cannot change the object (see walkSchemas
// and holdsNullEntry), and leaves what the server leaves.
func (v *Validator) decode(u *unstructured.Unstructured) ([]string, *field.Error) {
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, field.Invalid(field.NewPath("metadata"), u.Object["metadata"], err.Error())
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	// Pruning nulls deletes null map entries and nothing else: an object
	// without one skips the walk.
	if holdsNullEntry(u.Object) {
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
	}
	walks := v.walkSchemas()
	if walks.coercion != nil {
		fieldErr, embeddedUnknown := schemaobjectmeta.CoerceWithOptions(nil, u.Object, walks.coercion, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		if fieldErr != nil {
			return nil, fieldErr
		}
		unknown = append(unknown, embeddedUnknown...)
	}

	// Restore the implicit fields the schema need not declare.
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, field.Invalid(field.NewPath("metadata"), u.Object["metadata"], err.Error())
		}
	}
	v.applyDefaults(u.Object)
	return unknown, nil
}

// applyDefaults is structuraldefaulting.Default on the schema's defaulted
// subtrees alone.
func (v *Validator) applyDefaults(obj map[string]any) {
	if walks := v.walkSchemas(); walks.defaulting != nil {
		structuraldefaulting.Default(obj, walks.defaulting)
	}
}

// holdsNullEntry tells whether a map entry below x is null, the only thing
// structuraldefaulting.PruneNonNullableNullsWithoutDefaults deletes (it
// never removes a null list item).
func holdsNullEntry(x any) bool {
	switch x := x.(type) {
	case map[string]any:
		for _, value := range x {
			if value == nil || holdsNullEntry(value) {
				return true
			}
		}
	case []any:
		for _, item := range x {
			if holdsNullEntry(item) {
				return true
			}
		}
	}
	return false
}

// unknownFieldErrors turns pruned paths into errors at those paths, worded
// as the server's strict decoding error words each of them.
func unknownFieldErrors(paths []string) field.ErrorList {
	errs := make(field.ErrorList, 0, len(paths))
	for _, path := range paths {
		errs = append(errs, &field.Error{Type: field.ErrorTypeForbidden, Field: path, Detail: unknownFieldWarning(path), Origin: unknownFieldOrigin})
	}
	return errs
}

// IsUnknownField tells whether err reports a field the schema does not declare.
func IsUnknownField(err *field.Error) bool {
	return err.Origin == unknownFieldOrigin
}
