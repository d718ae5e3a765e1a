package schema

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/crdguard/crdguard/pkg/manifest"
)

var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

// CRDsFromDocuments picks the CustomResourceDefinitions out of documents,
// ignoring other objects (a CRD folder often holds a kustomization too). Every
// CRD is decoded strictly and validated as the API server validates a CRD on
// create; the first document that cannot be read or is not a valid CRD is
// returned as an error naming its file, CRD and fields, and a name given
// twice as a *DuplicateCRDError naming both documents.
func CRDsFromDocuments(ctx context.Context, docs []manifest.Document) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	located, err := LocateCRDs(ctx, docs)
	if err != nil {
		return nil, err
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, len(located))
	for i, c := range located {
		crds[i] = c.CRD
	}
	return crds, nil
}

// CRDsFromYAML is CRDsFromDocuments on the documents of data, a YAML or
// JSON stream that errors call source: for CRDs a program holds in memory,
// such as an embedded one.
func CRDsFromYAML(ctx context.Context, data []byte, source string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	docs, err := manifest.Read(bytes.NewReader(data), source)
	if err != nil {
		return nil, err
	}
	return CRDsFromDocuments(ctx, docs)
}

// LocateCRDs is CRDsFromDocuments keeping each CRD's document. A caller
// that gathers CRDs from several reads checks the whole set with
// RefuseDuplicateCRDs.
func LocateCRDs(ctx context.Context, docs []manifest.Document) ([]LocatedCRD, error) {
	var picked []manifest.Document
	for _, doc := range docs {
		if errors.Is(doc.Err, manifest.ErrNoTypeMeta) {
			continue // not a CRD: kustomization.yaml files often have neither field
		}
		if doc.Err == nil && doc.Object.GroupVersionKind().GroupKind() != crdGVK.GroupKind() {
			continue
		}
		picked = append(picked, doc)
	}
	// Validation compiles every CEL rule of a CRD and dominates loading, so
	// the CRDs are validated in parallel; the error reported is still that
	// of the first bad document.
	crds := make([]LocatedCRD, len(picked))
	errs := make([]error, len(picked))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(goruntime.GOMAXPROCS(0), len(picked)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(picked); i = int(next.Add(1)) - 1 {
				crds[i].Doc = picked[i]
				crds[i].CRD, errs[i] = crdFromDocumentRecovered(ctx, picked[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := RefuseDuplicateCRDs(crds); err != nil {
		return nil, err
	}
	return crds, nil
}

// crdFromDocumentRecovered is crdFromDocument with a panic turned into an
// error: it runs on a goroutine of its own, beyond any caller's recover.
func crdFromDocumentRecovered(ctx context.Context, doc manifest.Document) (crd *apiextensionsv1.CustomResourceDefinition, err error) {
	defer func() {
		if r := recover(); r != nil {
			crd, err = nil, fmt.Errorf("%s: internal error validating the CustomResourceDefinition: %v", doc.Position(), r)
		}
	}()
	return crdFromDocument(ctx, doc)
}

// crdFromDocument decodes and validates the CRD in doc.
func crdFromDocument(ctx context.Context, doc manifest.Document) (*apiextensionsv1.CustomResourceDefinition, error) {
	if doc.Err != nil {
		return nil, fmt.Errorf("%s: %w", doc.Position(), doc.Err)
	}
	if gvk := doc.Object.GroupVersionKind(); gvk.Version != crdGVK.Version {
		return nil, fmt.Errorf("%s: CustomResourceDefinition %q: %s is not served by Kubernetes since 1.22; convert it to %s",
			doc.Position(), doc.Object.GetName(), gvk.GroupVersion(), crdGVK.GroupVersion())
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(doc.Object.Object, crd, true); err != nil {
		return nil, fmt.Errorf("%s: CustomResourceDefinition %q: %w", doc.Position(), doc.Object.GetName(), err)
	}
	if errs := ValidateCRD(ctx, crd); len(errs) > 0 {
		return nil, newInvalidCRDError(doc, crd, errs)
	}
	return crd, nil
}

// crdScheme types the internal CRD objects for the CRD registry strategy.
var crdScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(schema.GroupVersion{Group: apiextensions.GroupName, Version: runtime.APIVersionInternal}, &apiextensions.CustomResourceDefinition{})
	return s
}()

// ValidateCRD returns the errors kube-apiserver reports when crd is created,
// from the server's own CRD strategy (structural schema, CEL compilation and
// cost estimation, names, versions). crd is not modified.
func ValidateCRD(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	internal, err := toInternal(crd)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	strategy := customresourcedefinition.NewStrategy(crdScheme)
	strategy.PrepareForCreate(ctx, internal)
	return rest.ValidateCreate(ctx, internal, strategy)
}

// toInternal converts to the internal version the server's validation works
// on, after the v1 defaults the server applies when decoding.
func toInternal(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, error) {
	defaulted := crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(defaulted)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(defaulted, internal, nil); err != nil {
		return nil, err
	}
	return internal, nil
}
