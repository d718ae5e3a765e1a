package policies

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// policySchema validates GuardPolicies read from files against the CRD
// the API server would use, so a file gets the same verdict as a kubectl
// apply of it.
var policySchema = sync.OnceValues(func() (*schema.Validator, error) {
	crds, err := schema.CRDsFromYAML(context.Background(), v1alpha1.CRDYAML, "GuardPolicy CRD")
	if err != nil {
		return nil, err
	}
	registry, err := schema.NewRegistry(crds...)
	if err != nil {
		return nil, err
	}
	return registry.Validator(v1alpha1.GroupVersion.WithKind("GuardPolicy"))
})

// PoliciesFromDocuments picks the GuardPolicies out of documents, ignoring
// other kinds. Each is validated like the API server would (schema, CEL
// markers, defaults) and then by ValidateGuardPolicy; the first invalid one
// is an error naming its file, document, policy and fields.
func PoliciesFromDocuments(ctx context.Context, docs []manifest.Document, schemas *schema.Registry) ([]*v1alpha1.GuardPolicy, error) {
	validator, err := policySchema()
	if err != nil {
		return nil, fmt.Errorf("GuardPolicy CRD: %w", err)
	}
	gk := v1alpha1.GroupVersion.WithKind("GuardPolicy").GroupKind()
	var out []*v1alpha1.GuardPolicy
	for _, doc := range docs {
		if doc.Err != nil {
			return nil, fmt.Errorf("%s: %w", doc.Position(), doc.Err)
		}
		if doc.Object.GroupVersionKind().GroupKind() != gk {
			continue
		}
		if doc.Object.GetAPIVersion() != v1alpha1.GroupVersion.String() {
			return nil, fmt.Errorf("%s: GuardPolicy %q: apiVersion %s is not served; use %s", doc.Position(), doc.Object.GetName(), doc.Object.GetAPIVersion(), v1alpha1.GroupVersion)
		}
		p, errs := policyFromObject(ctx, validator, doc.Object, schemas)
		if len(errs) > 0 {
			return nil, fmt.Errorf("%s: GuardPolicy %q is invalid: %v", doc.Position(), doc.Object.GetName(), errs.ToAggregate())
		}
		out = append(out, p)
	}
	return out, nil
}

// PolicyFromObject validates one GuardPolicy object exactly as
// PoliciesFromDocuments validates each document (schema, CEL markers,
// defaults, then ValidateGuardPolicy) and decodes it. It returns the
// errors themselves rather than one message, so an admission webhook can
// name every field path in its denial, and a watch can report them per
// policy. obj must be a crdguard.dev/v1alpha1 GuardPolicy.
func PolicyFromObject(ctx context.Context, obj *unstructured.Unstructured, schemas *schema.Registry) (*v1alpha1.GuardPolicy, field.ErrorList) {
	p, errs := DecodePolicy(ctx, obj)
	if len(errs) > 0 {
		return nil, errs
	}
	if errs := ValidateGuardPolicy(p, schemas); len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

func policyFromObject(ctx context.Context, validator *schema.Validator, obj *unstructured.Unstructured, schemas *schema.Registry) (*v1alpha1.GuardPolicy, field.ErrorList) {
	p, errs := decodePolicy(ctx, validator, obj)
	if len(errs) > 0 {
		return nil, errs
	}
	if errs := ValidateGuardPolicy(p, schemas); len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// DecodePolicy is the first half of PolicyFromObject: obj validated against
// the GuardPolicy CRD (schema, CEL markers, defaults) and decoded, not yet
// checked by ValidateGuardPolicy. Its verdict depends on obj alone, so a
// caller that sees the same stored version again may keep it; the second
// half depends on the CRDs the policy is compiled against too.
func DecodePolicy(ctx context.Context, obj *unstructured.Unstructured) (*v1alpha1.GuardPolicy, field.ErrorList) {
	validator, err := policySchema()
	if err != nil {
		return nil, field.ErrorList{field.InternalError(nil, fmt.Errorf("GuardPolicy CRD: %w", err))}
	}
	if gvk := obj.GroupVersionKind(); gvk != v1alpha1.GroupVersion.WithKind("GuardPolicy") {
		return nil, field.ErrorList{field.NotSupported(field.NewPath("apiVersion"), obj.GetAPIVersion(), []string{v1alpha1.GroupVersion.String()})}
	}
	return decodePolicy(ctx, validator, obj)
}

func decodePolicy(ctx context.Context, validator *schema.Validator, obj *unstructured.Unstructured) (*v1alpha1.GuardPolicy, field.ErrorList) {
	if errs := validator.Validate(ctx, obj, nil); len(errs) > 0 {
		return nil, errs
	}
	p := &v1alpha1.GuardPolicy{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(validator.Decode(obj).Object, p); err != nil {
		// The schema admitted it, so this is crdguard's bug, not the user's.
		return nil, field.ErrorList{field.InternalError(nil, err)}
	}
	return p, nil
}
