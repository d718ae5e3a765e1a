package schema

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// NoSchemaError says that no loaded CRD defines an object's kind.
type NoSchemaError struct {
	GroupVersionKind schema.GroupVersionKind
}

func (e *NoSchemaError) Error() string {
	return fmt.Sprintf("no CustomResourceDefinition defines %s", e.GroupVersionKind)
}

// Registry holds the validators of a set of CRDs, one per served
// group/version/kind, each compiled on first use and then shared. It is safe
// for concurrent use.
type Registry struct {
	validators map[schema.GroupVersionKind]func() (*Validator, error)
	// served lists the served versions of each group/kind, so an object of an
	// unserved version gets the server's answer rather than "no schema".
	served map[schema.GroupKind][]string
	// namespaced records each group/kind's scope.
	namespaced map[schema.GroupKind]bool
	// plurals are each group/kind's resource name.
	plurals map[schema.GroupKind]string
}

// RegistryFromFiles reads the CRDs in paths (files or directories of YAML or
// JSON) and indexes them: the one call an operator's own tests need.
func RegistryFromFiles(ctx context.Context, paths ...string) (*Registry, error) {
	docs, err := manifest.ReadPaths(nil, paths...)
	if err != nil {
		return nil, err
	}
	crds, err := CRDsFromDocuments(ctx, docs)
	if err != nil {
		return nil, err
	}
	return NewRegistry(crds...)
}

// NewRegistry indexes crds; they must be valid (see CRDsFromDocuments). Two
// CRDs defining the same kind are an error: which one applies would be a guess.
func NewRegistry(crds ...*apiextensionsv1.CustomResourceDefinition) (*Registry, error) {
	r := &Registry{
		validators: map[schema.GroupVersionKind]func() (*Validator, error){},
		served:     map[schema.GroupKind][]string{},
		namespaced: map[schema.GroupKind]bool{},
		plurals:    map[schema.GroupKind]string{},
	}
	owner := map[schema.GroupKind]string{}
	for _, crd := range crds {
		gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
		if prev, ok := owner[gk]; ok && prev != crd.Name {
			return nil, fmt.Errorf("CustomResourceDefinitions %q and %q both define %s", prev, crd.Name, gk)
		} else if ok {
			return nil, fmt.Errorf("CustomResourceDefinition %q is given twice", crd.Name)
		}
		owner[gk] = crd.Name
		r.namespaced[gk] = crd.Spec.Scope == apiextensionsv1.NamespaceScoped
		r.plurals[gk] = crd.Spec.Names.Plural
		for _, version := range crd.Spec.Versions {
			if !version.Served {
				continue
			}
			r.served[gk] = append(r.served[gk], version.Name)
			r.validators[gk.WithVersion(version.Name)] = sync.OnceValues(func() (*Validator, error) {
				return NewValidator(crd, version.Name)
			})
		}
	}
	return r, nil
}

// Validator returns the compiled validator for gvk, or a *NoSchemaError.
func (r *Registry) Validator(gvk schema.GroupVersionKind) (*Validator, error) {
	compile, ok := r.validators[gvk]
	if !ok {
		return nil, &NoSchemaError{GroupVersionKind: gvk}
	}
	return compile()
}

// Compile compiles the validators of kinds, or of every served kind when
// none is given, GOMAXPROCS at a time: callers that are about to validate
// in parallel then find them ready, rather than each waiting on the one
// compiling the kind it needs. It returns the first error in the order of
// kinds (that of Kinds when none is given), or ctx's once it is done; a
// kind no CRD defines is a *NoSchemaError. Validator returns a kind's
// error again, as it would have without Compile.
func (r *Registry) Compile(ctx context.Context, kinds ...schema.GroupVersionKind) error {
	if len(kinds) == 0 {
		kinds = r.Kinds()
	}
	errs := make([]error, len(kinds))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(kinds)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(kinds) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				errs[i] = r.compile(kinds[i])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// compile compiles the validator of gvk. A panic in the compilation is
// its error here: it would otherwise end the process from a goroutine no
// caller can recover on. Validator panics with it again, on the caller's
// goroutine.
func (r *Registry) compile(gvk schema.GroupVersionKind) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("compiling the validator of %s: panic: %v", gvk, p)
		}
	}()
	_, err = r.Validator(gvk)
	return err
}

// Validate validates obj (old == nil: a create; else an update of old) with
// the validator of obj's kind. An object of a version its CRD does not serve
// fails as it would against the server; an object whose kind no CRD defines
// is a *NoSchemaError.
func (r *Registry) Validate(ctx context.Context, obj, old *unstructured.Unstructured) (field.ErrorList, error) {
	return r.ValidateWithOptions(ctx, obj, old, ValidateOptions{})
}

// ValidateWithOptions is Validator.ValidateWithOptions with the validator of
// obj's kind: DryRun's errors and error, without the work of preparing a
// stored object.
func (r *Registry) ValidateWithOptions(ctx context.Context, obj, old *unstructured.Unstructured, opts ValidateOptions) (field.ErrorList, error) {
	v, errs, err := r.validatorOf(obj)
	if v == nil {
		return errs, err
	}
	errs, _, mismatch := v.verifiedValidate(ctx, obj, old, opts)
	if mismatch != nil {
		return nil, mismatch
	}
	return errs, nil
}

// DryRun is Validator.DryRun with the validator of obj's kind. An object of
// a version its CRD does not serve fails as in Validate, without a stored
// object; an object whose kind no CRD defines is a *NoSchemaError; under
// WithFastPathVerification, a difference between the fast paths and
// kube-apiserver's validators is a *FastPathMismatchError.
func (r *Registry) DryRun(ctx context.Context, obj, old *unstructured.Unstructured, opts ValidateOptions) (*unstructured.Unstructured, field.ErrorList, error) {
	v, errs, err := r.validatorOf(obj)
	if v == nil {
		return nil, errs, err
	}
	stored, errs, mismatch := v.dryRun(ctx, obj, old, opts)
	if mismatch != nil {
		return nil, nil, mismatch
	}
	return stored, errs, nil
}

// validatorOf returns the validator of obj's kind, or else the errors the
// server reports for a version its CRD does not serve, or else the error of
// Validator.
func (r *Registry) validatorOf(obj *unstructured.Unstructured) (*Validator, field.ErrorList, error) {
	gvk := obj.GroupVersionKind()
	if served, ok := r.served[gvk.GroupKind()]; ok && r.validators[gvk] == nil {
		versions := make([]string, len(served))
		for i, v := range served {
			versions[i] = gvk.GroupKind().WithVersion(v).GroupVersion().String()
		}
		sort.Strings(versions)
		return nil, field.ErrorList{field.NotSupported(field.NewPath("apiVersion"), obj.GetAPIVersion(), versions)}, nil
	}
	v, err := r.Validator(gvk)
	return v, nil, err
}

// Namespace is the namespace the API server would put obj in: "default" for
// a namespaced object that names none, "" for a cluster-scoped one, and
// obj's own namespace when no CRD defines its kind.
func (r *Registry) Namespace(obj *unstructured.Unstructured) string {
	namespaced, known := r.namespaced[obj.GroupVersionKind().GroupKind()]
	if !known {
		return obj.GetNamespace()
	}
	return effectiveNamespace(namespaced, obj.GetNamespace())
}

// effectiveNamespace is where kubectl and the server put an object: a
// namespaced object that names no namespace goes to "default"; a
// cluster-scoped object's namespace is ignored.
func effectiveNamespace(namespaced bool, namespace string) string {
	switch {
	case !namespaced:
		return ""
	case namespace == "":
		return "default"
	}
	return namespace
}

// Resource is the resource name (the plural) of a group/kind a CRD
// defines. A nil Registry defines none.
func (r *Registry) Resource(gk schema.GroupKind) (string, bool) {
	if r == nil {
		return "", false
	}
	plural, ok := r.plurals[gk]
	return plural, ok
}

// Kinds lists the served group/version/kinds, sorted.
func (r *Registry) Kinds() []schema.GroupVersionKind {
	kinds := make([]schema.GroupVersionKind, 0, len(r.validators))
	for gvk := range r.validators {
		kinds = append(kinds, gvk)
	}
	sort.Slice(kinds, func(i, j int) bool { return strings.Compare(kinds[i].String(), kinds[j].String()) < 0 })
	return kinds
}
