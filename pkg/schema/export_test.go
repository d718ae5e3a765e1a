package schema

import (
	"context"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"
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

// FastSchemaRejects tells whether v's compiled schema check certainly
// finds value invalid.
func FastSchemaRejects(v *Validator, value any) bool {
	return v.fastSchema.check.eval(value) == invalid
}

// HasFastCEL tells whether v checks CEL rules on the fast path.
func HasFastCEL(v *Validator) bool {
	return v.fastCEL != nil
}

// Outcome is what one validation reports: its errors and the warnings it
// recorded, as strings.
type Outcome struct {
	Errors, Warnings []string
}

// ValidateBothWays validates obj (a create when old is nil, else an update
// of old) with the fast paths and with kube-apiserver's validators alone,
// each recording its own warnings.
func ValidateBothWays(ctx context.Context, v *Validator, obj, old *unstructured.Unstructured) (fast, upstream Outcome) {
	// Both runs see the same generated name, which messages may quote.
	if old == nil && obj.GetName() == "" && obj.GetGenerateName() != "" {
		obj = obj.DeepCopy()
		obj.SetName(v.strategy.GenerateName(obj.GetGenerateName()))
	}
	run := func(fastPaths bool) Outcome {
		ctx, recorder := RecordWarnings(ctx)
		errs, _ := v.validate(ctx, obj, old, ValidateOptions{}, fastPaths)
		return Outcome{Errors: errorStrings(errs), Warnings: recorder.warnings}
	}
	return run(true), run(false)
}

// FastCELAccepts tells whether v's fast CEL check accepts obj as
// validate would prepare it for a create (old == nil) or an update of old.
// Objects the server cannot decode are not accepted.
func FastCELAccepts(ctx context.Context, v *Validator, obj, old *unstructured.Unstructured) bool {
	if v.fastCEL == nil {
		return false
	}
	obj = obj.DeepCopy()
	if _, err := v.decode(obj); err != nil {
		return false
	}
	if old == nil {
		v.prepareForCreate(ctx, obj, v.strategy)
		return v.fastCEL.accepts(ctx, obj.Object, false)
	}
	old = old.DeepCopy()
	if _, err := v.decode(old); err != nil {
		return false
	}
	v.prepareForUpdate(ctx, obj, old, v.strategy)
	return v.fastCEL.accepts(ctx, obj.Object, true)
}

// CELSchemas adapts s for CEL as the fast CEL check does, and as upstream
// does.
func CELSchemas(s *structuralschema.Structural) (cached, upstream common.Schema) {
	return newCELSchema(s), &model.Structural{Structural: s}
}

// CreateStrategyOutcome is what CreateStrategyErrors reports of one create.
type CreateStrategyOutcome struct {
	// Trimmed and Whole are the errors, normalized, of the strategy that
	// validates creates on the fast paths and of the same strategy on the
	// whole schema without rules.
	Trimmed, Whole []string
	// EmbeddedWalk and ListTypeWalk are the errors of upstream's
	// embedded-resource and list-type walks on the whole schema.
	EmbeddedWalk, ListTypeWalk []string
}

// CreateStrategyErrors decodes and prepares obj for a create as validate
// does and validates it with v's create strategy and with the strategy it
// stands in for; ok is false when v has no create strategy or obj cannot
// be decoded.
func CreateStrategyErrors(ctx context.Context, v *Validator, obj *unstructured.Unstructured) (outcome CreateStrategyOutcome, ok bool) {
	if v.createStrategy == nil {
		return CreateStrategyOutcome{}, false
	}
	obj = obj.DeepCopy()
	if _, err := v.decode(obj); err != nil {
		return CreateStrategyOutcome{}, false
	}
	v.prepareForCreate(ctx, obj, v.strategy)
	return CreateStrategyOutcome{
		Trimmed:      errorStrings(normalize(validateWith(ctx, obj.DeepCopy(), nil, v.createStrategy))),
		Whole:        errorStrings(normalize(validateWith(ctx, obj.DeepCopy(), nil, v.celFreeStrategy))),
		EmbeddedWalk: errorStrings(schemaobjectmeta.Validate(ctx, nil, obj.Object, v.structural, false)),
		ListTypeWalk: errorStrings(structurallisttype.ValidateListSetsAndMaps(nil, v.structural, obj.Object)),
	}, true
}
