package schema

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// strategy is what the API server's custom resource strategy offers; its
// concrete type is unexported upstream.
type strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// Validator validates objects of one served group/version/kind. It is safe
// for concurrent use: all compiled state (OpenAPI validator, CEL programs) is
// read-only after NewValidator, exactly as in the API server.
type Validator struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	structural *structuralschema.Structural
	// strategy runs the fast schema check in front of kube-openapi's
	// validator; upstreamStrategy runs the latter alone, for verification,
	// built (its CEL rules compiled) on first use.
	strategy         strategy
	upstreamStrategy func() strategy
	// celFreeStrategy is strategy without x-kubernetes-validations, and
	// createStrategy the same on the schema trimmed to what its walks can
	// report on a create (createWalksSchema); their schema validator only
	// tells whether the fast check certainly accepts (acceptOnlyValidator).
	// fastCEL is the check that stands in for the rules (see
	// validatePrepared), nil when the schema has none. The strategies are
	// nil when the schema has rules fastCEL leaves to upstream.
	celFreeStrategy strategy
	createStrategy  strategy
	fastCEL         *celCheck
	// fastSchema is the schema validator strategy runs.
	fastSchema *fastSchemaValidator
	// deprecation is what the server warns of every request to this version.
	deprecation []string
	// walks are the trimmed schemas of decode's upstream walks (see
	// walkSchemas).
	walks           walkSchemas
	walkSchemasOnce sync.Once
}

// NewValidator compiles the validator for one served version of crd. crd must
// already be valid (see ValidateCRD).
func NewValidator(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Validator, error) {
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}
	openAPISchema, structural, err := versionSchema(crd, version)
	if err != nil {
		return nil, err
	}
	// Like the server, prune defaults of unknown fields once so defaulting
	// can never add what pruning would remove.
	if err := structuraldefaulting.PruneDefaults(structural); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %q version %s: %w", crd.Name, version, err)
	}
	schemaValidator, schemaOpenAPI, err := apiservervalidation.NewSchemaValidator(openAPISchema)
	if err != nil {
		return nil, err
	}

	subresources, err := apihelpers.GetSubresourcesForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	var status *apiextensions.CustomResourceSubresourceStatus
	var statusValidator, fastStatusValidator apiservervalidation.SchemaValidator
	var scale *apiextensions.CustomResourceSubresourceScale
	if subresources != nil && subresources.Status != nil {
		status = &apiextensions.CustomResourceSubresourceStatus{}
		if statusSchema, ok := openAPISchema.Properties["status"]; ok {
			var statusOpenAPI *spec.Schema
			if statusValidator, statusOpenAPI, err = apiservervalidation.NewSchemaValidator(&statusSchema); err != nil {
				return nil, err
			}
			fastStatusValidator = newFastSchemaValidator(statusOpenAPI, statusValidator)
		}
	}
	if subresources != nil && subresources.Scale != nil {
		scale = &apiextensions.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scale, nil); err != nil {
			return nil, err
		}
	}
	var selectableFields []apiextensionsv1.SelectableField
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			selectableFields = v.SelectableFields
		}
	}

	namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
	newStrategy := func(structural *structuralschema.Structural, schemaValidator, statusValidator apiservervalidation.SchemaValidator) strategy {
		return customresource.NewStrategy(crdserverscheme.NewUnstructuredObjectTyper(), namespaced, gvk,
			schemaValidator, statusValidator, structural, status, scale, selectableFields)
	}
	fastSchema := newFastSchemaValidator(schemaOpenAPI, schemaValidator)
	v := &Validator{
		gvk:              gvk,
		namespaced:       namespaced,
		structural:       structural,
		strategy:         newStrategy(structural, fastSchema, fastStatusValidator),
		upstreamStrategy: sync.OnceValue(func() strategy { return newStrategy(structural, schemaValidator, statusValidator) }),
		fastSchema:       fastSchema,
		deprecation:      versionWarnings(crd, version),
	}
	if v.fastCEL = compileCELCheck(structural); v.fastCEL != nil || !hasRules(structural) {
		first := acceptOnlyValidator{fastSchema.check}
		v.celFreeStrategy = newStrategy(withoutRules(structural), first, fastStatusValidator)
		v.createStrategy = newStrategy(createWalksSchema(withoutRules(structural)), first, fastStatusValidator)
	}
	return v, nil
}

// GroupVersionKind is the kind this validator validates.
func (v *Validator) GroupVersionKind() schema.GroupVersionKind { return v.gvk }

// Namespaced tells whether objects of this kind live in a namespace.
func (v *Validator) Namespaced() bool { return v.namespaced }

// Validate returns what kube-apiserver reports for creating obj (old == nil)
// or for updating old to obj, plus the unknown fields the server rejects
// under fieldValidation=Strict (where it reports nothing else). Neither
// argument is modified (in ValidateWithOptions and DryRun, unless
// ValidateOptions.HandOverObject says so). Under WithFastPathVerification
// it returns the errors of kube-apiserver's validators alone on a
// difference, which only the Registry's Validate, ValidateWithOptions and
// DryRun report.
func (v *Validator) Validate(ctx context.Context, obj, old *unstructured.Unstructured) field.ErrorList {
	return v.ValidateWithOptions(ctx, obj, old, ValidateOptions{})
}

// ValidateWithOptions is Validate for a request with opts: under
// fieldValidation=Warn the unknown fields are warnings recorded in ctx (see
// RecordWarnings) before those of validation, as the server records them.
func (v *Validator) ValidateWithOptions(ctx context.Context, obj, old *unstructured.Unstructured, opts ValidateOptions) field.ErrorList {
	errs, _, _ := v.verifiedValidate(ctx, obj, old, opts)
	return errs
}

// DryRun is what a dry-run request returns: the errors Validate reports
// (under opts), and obj as the server would store it if it accepted it:
// pruned, defaulted, its status dropped when a create may not set it, and
// metadata as the server fills it (namespace, generated name, generation,
// what an update keeps of the stored object), and defaulted again as the
// server defaults what it reads back. What only the server can assign is
// left out: resourceVersion and managedFields, and on create uid and
// creationTimestamp; selfLink, and on create a deletion, are dropped as the
// server drops them. stored is nil when the server could not decode
// obj. Neither argument is modified unless opts hands obj over.
func (v *Validator) DryRun(ctx context.Context, obj, old *unstructured.Unstructured, opts ValidateOptions) (stored *unstructured.Unstructured, errs field.ErrorList) {
	stored, errs, _ = v.dryRun(ctx, obj, old, opts)
	return stored, errs
}

// dryRun is DryRun, with the *FastPathMismatchError of a verification
// that failed (see WithFastPathVerification).
func (v *Validator) dryRun(ctx context.Context, obj, old *unstructured.Unstructured, opts ValidateOptions) (stored *unstructured.Unstructured, errs field.ErrorList, mismatch error) {
	errs, stored, mismatch = v.verifiedValidate(ctx, obj, old, opts)
	if stored == nil {
		return nil, errs, mismatch
	}
	stored.SetResourceVersion("")
	stored.SetManagedFields(nil)
	stored.SetSelfLink("") // never stored
	if old == nil {
		stored.SetUID("")
		stored.SetCreationTimestamp(metav1.Time{})
		// A create cannot start a deletion.
		stored.SetDeletionTimestamp(nil)
		stored.SetDeletionGracePeriodSeconds(nil)
	} else if ts := old.GetCreationTimestamp(); ts.IsZero() {
		stored.SetCreationTimestamp(metav1.Time{}) // a stand-in, not the stored object's
	}
	// The server defaults what it reads back from storage as well: a status
	// dropped on create takes the status's own default.
	v.applyDefaults(stored.Object)
	return stored, errs, mismatch
}

// verifiedValidate is validate with the fast paths, and when ctx asks for
// it (see WithFastPathVerification) also without them: on any difference
// it returns the errors of kube-apiserver's validators alone and a
// *FastPathMismatchError.
func (v *Validator) verifiedValidate(ctx context.Context, obj, old *unstructured.Unstructured, opts ValidateOptions) (field.ErrorList, *unstructured.Unstructured, error) {
	if !VerifiesFastPaths(ctx) {
		errs, stored := v.validate(ctx, obj, old, opts, true)
		return errs, stored, nil
	}
	// Both runs need the object as given.
	opts.HandOverObject = false
	// Both runs see the same generated name, which messages may quote.
	if old == nil && obj.GetName() == "" && obj.GetGenerateName() != "" {
		obj = obj.DeepCopy()
		obj.SetName(v.strategy.GenerateName(obj.GetGenerateName()))
	}
	// Each run records its warnings apart: a CEL rule that ratcheting
	// tolerates is a warning, not an error.
	fastCtx, fastWarnings := RecordWarnings(ctx)
	errs, stored := v.validate(fastCtx, obj, old, opts, true)
	upstreamCtx, upstreamWarnings := RecordWarnings(ctx)
	upstreamErrs, upstreamStored := v.validate(upstreamCtx, obj, old, opts, false)
	if sameErrors(errs, upstreamErrs) && sameWarnings(fastWarnings, upstreamWarnings) {
		fastWarnings.forward(ctx)
		return errs, stored, nil
	}
	upstreamWarnings.forward(ctx)
	return upstreamErrs, upstreamStored, &FastPathMismatchError{
		GroupVersionKind: v.gvk, Namespace: effectiveNamespace(v.namespaced, obj.GetNamespace()), Name: obj.GetName(),
		Fast:     append(errorStrings(errs), fastWarnings.asFindings()...),
		Upstream: append(errorStrings(upstreamErrs), upstreamWarnings.asFindings()...),
	}
}

// validate validates a copy of obj (obj itself when opts hands it over),
// with the fast paths or with kube-apiserver's validators alone, and
// returns it as prepared for storage, nil when it could not be decoded.
func (v *Validator) validate(ctx context.Context, obj, old *unstructured.Unstructured, opts ValidateOptions, fast bool) (field.ErrorList, *unstructured.Unstructured) {
	strat := v.strategy
	if !fast {
		strat = v.upstreamStrategy()
	}
	unchanged := obj == old
	if !opts.HandOverObject || unchanged {
		obj = obj.DeepCopy()
	}
	unknown, decodeErr := v.decode(obj)
	if decodeErr != nil {
		return field.ErrorList{decodeErr}, nil // the server stops here too
	}
	errs := applyFieldValidation(ctx, opts.FieldValidation, unknown)
	if old == nil {
		v.prepareForCreate(ctx, obj, strat)
		return normalize(append(errs, v.validatePrepared(ctx, obj, nil, fast)...)), obj
	}
	// The stored object was pruned when it was written: its unknown fields
	// are gone, not errors of this update. An update of an object to
	// itself (a stored object's replay) decodes it once.
	if unchanged {
		old = obj.DeepCopy()
	} else {
		old = old.DeepCopy()
		if _, decodeErr := v.decode(old); decodeErr != nil {
			decodeErr.Detail = "old object: " + decodeErr.Detail
			return field.ErrorList{decodeErr}, nil
		}
	}
	v.prepareForUpdate(ctx, obj, old, strat)
	return normalize(append(errs, v.validatePrepared(ctx, obj, old, fast)...)), obj
}

// validatePrepared is what the server's create (old == nil) or update
// handler validates once obj is prepared: rest.ValidateCreate or
// rest.ValidateUpdate with the strategy. With the fast paths, the strategy
// without CEL runs first, and when it finds nothing and the fast CEL check
// (if the schema has rules) accepts every rule, that is the answer: the
// whole strategy would then run every rule (CEL runs only without blocking
// errors), each true, and add no error and record no warning (upstream's
// CEL validator warns only of a false rule that ratcheting tolerates); and
// metadata validation, which runs only when the strategy found nothing,
// has run already. On a create that strategy walks only the schema's
// subtrees where its embedded-resource and list-type walks can find an
// error (see createWalksSchema), so it finds nothing exactly when the
// strategy without CEL on the whole schema finds nothing; an update's
// ratcheting correlates obj and old along the whole schema, so an update
// keeps it. The first strategy's schema validator only tells whether the
// fast check certainly accepts, so kube-openapi's validator runs once, in
// the whole strategy. Anything else is the whole strategy's answer, so the
// fast paths only ever say "valid".
func (v *Validator) validatePrepared(ctx context.Context, obj, old *unstructured.Unstructured, fast bool) field.ErrorList {
	if !fast {
		return validateWith(ctx, obj, old, v.upstreamStrategy())
	}
	celFree := v.celFreeStrategy
	if old == nil {
		celFree = v.createStrategy
	}
	if celFree != nil {
		if errs := validateWith(ctx, obj, old, celFree); len(errs) == 0 && (v.fastCEL == nil || v.fastCEL.accepts(ctx, obj.Object, old != nil)) {
			return nil
		}
	}
	return validateWith(ctx, obj, old, v.strategy)
}

// validateWith is rest.ValidateCreate (old == nil) or rest.ValidateUpdate
// with strat.
func validateWith(ctx context.Context, obj, old *unstructured.Unstructured, strat strategy) field.ErrorList {
	if old == nil {
		return rest.ValidateCreate(ctx, obj, strat)
	}
	return rest.ValidateUpdate(ctx, obj, old, strat)
}

// normalize orders errs by field path, then type and detail, and drops exact
// repeats. The server's order follows Go map iteration and changes from call
// to call; a stable order keeps reports diffable. Errors without a path
// ("<nil>") go last, where the server puts its "some validation rules were
// not checked" marker. Repeats come from the server's update path, which
// validates metadata twice (its own error message drops them as well).
func normalize(errs field.ErrorList) field.ErrorList {
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		if (a.Field == "<nil>") != (b.Field == "<nil>") {
			if a.Field == "<nil>" {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Detail, b.Detail))
	})
	return slices.CompactFunc(errs, func(a, b *field.Error) bool { return a.Error() == b.Error() })
}

// Decode returns obj as the API server would store it and show it to
// admission webhooks: unknown fields pruned, defaults applied. When the
// server could not decode obj at all, Decode returns an unchanged copy.
func (v *Validator) Decode(obj *unstructured.Unstructured) *unstructured.Unstructured {
	decoded := obj.DeepCopy()
	if _, err := v.decode(decoded); err != nil {
		return obj.DeepCopy()
	}
	return decoded
}

// DeprecationWarnings are what the server warns of every request to this
// version, accepted or not: the version's deprecation, if it is deprecated.
func (v *Validator) DeprecationWarnings() []string { return slices.Clone(v.deprecation) }

// Warnings returns the warnings kube-apiserver sends with a successful
// create (old == nil) or update of obj, such as finalizer names that are not
// domain-qualified. The warnings of validation itself (ratcheted CEL rules)
// are recorded while Validate runs (see RecordWarnings), and those of the
// version in DeprecationWarnings. Neither argument is modified.
func (v *Validator) Warnings(ctx context.Context, obj, old *unstructured.Unstructured) []string {
	obj = obj.DeepCopy()
	warnings := dedupOwnerReferences(obj)
	if old == nil {
		return append(warnings, v.strategy.WarningsOnCreate(ctx, obj)...)
	}
	return append(warnings, v.strategy.WarningsOnUpdate(ctx, obj, old)...)
}

// Default applies the schema's defaults to obj in place, as the server does
// while decoding a request (after pruning nulls that have no default).
func (v *Validator) Default(obj *unstructured.Unstructured) {
	if holdsNullEntry(obj.Object) {
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj.Object, v.structural)
	}
	v.applyDefaults(obj.Object)
}

// prepareForCreate does what the API server does between decoding and
// validation of a create: fill the namespace the request is sent to, generate
// a name, and let the strategy drop what a create may not set (status).
func (v *Validator) prepareForCreate(ctx context.Context, obj *unstructured.Unstructured, strat strategy) {
	v.fixNamespace(obj)
	dedupOwnerReferences(obj)
	resetManagedFields(obj, nil)
	if obj.GetName() == "" && obj.GetGenerateName() != "" {
		obj.SetName(strat.GenerateName(obj.GetGenerateName()))
	}
	strat.PrepareForCreate(ctx, obj)
}

// prepareForUpdate mirrors rest.BeforeUpdate up to validation.
func (v *Validator) prepareForUpdate(ctx context.Context, obj, old *unstructured.Unstructured, strat strategy) {
	v.fixNamespace(obj)
	v.fixNamespace(old)
	dedupOwnerReferences(obj)
	resetManagedFields(obj, old)
	// A stored object always has a resourceVersion, a creationTimestamp
	// and a generation (1 from its create on), and an update without a
	// resourceVersion is applied to the current object (as kubectl apply
	// and patches are).
	if old.GetResourceVersion() == "" {
		old.SetResourceVersion("1")
	}
	if ts := old.GetCreationTimestamp(); ts.IsZero() {
		old.SetCreationTimestamp(storedCreationTimestamp)
	}
	if old.GetGeneration() == 0 {
		old.SetGeneration(1)
	}
	if obj.GetResourceVersion() == "" {
		obj.SetResourceVersion(old.GetResourceVersion())
	}
	obj.SetGeneration(old.GetGeneration())
	strat.PrepareForUpdate(ctx, obj, old)
	if obj.GetUID() == "" {
		obj.SetUID(old.GetUID())
	}
	if ts := old.GetCreationTimestamp(); !ts.IsZero() {
		obj.SetCreationTimestamp(ts)
	}
	if ts := old.GetDeletionTimestamp(); ts != nil {
		obj.SetDeletionTimestamp(ts)
	}
	if s := old.GetDeletionGracePeriodSeconds(); s != nil && obj.GetDeletionGracePeriodSeconds() == nil {
		obj.SetDeletionGracePeriodSeconds(s)
	}
}

// fixNamespace sets the namespace the request would be sent to.
func (v *Validator) fixNamespace(obj *unstructured.Unstructured) {
	obj.SetNamespace(effectiveNamespace(v.namespaced, obj.GetNamespace()))
}
