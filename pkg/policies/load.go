package policies

import (
	"bytes"
	"context"
	"fmt"
	"sync"

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
	docs, err := manifest.Read(bytes.NewReader(v1alpha1.CRDYAML), "GuardPolicy CRD")
	if err != nil {
		return nil, err
	}
	crds, err := schema.CRDsFromDocuments(context.Background(), docs)
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
		invalid := func(errs field.ErrorList) error {
			return fmt.Errorf("%s: GuardPolicy %q is invalid: %v", doc.Position(), doc.Object.GetName(), errs.ToAggregate())
		}
		if errs := validator.Validate(ctx, doc.Object, nil); len(errs) > 0 {
			return nil, invalid(errs)
		}
		p := &v1alpha1.GuardPolicy{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(validator.Decode(doc.Object).Object, p); err != nil {
			return nil, fmt.Errorf("%s: GuardPolicy %q: %w", doc.Position(), doc.Object.GetName(), err)
		}
		if errs := ValidateGuardPolicy(p, schemas); len(errs) > 0 {
			return nil, invalid(errs)
		}
		out = append(out, p)
	}
	return out, nil
}
