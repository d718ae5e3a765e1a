package gotypes

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Structural is the API server's structural schema: the form pruning,
// defaulting and validation work on. It is compared as is, never rebuilt.
type Structural = structuralschema.Structural

// structuralFor returns the structural schema of one version of crd, built
// with the same upstream calls as pkg/schema.NewValidator.
func structuralFor(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Structural, error) {
	v1, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	if v1 == nil || v1.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("CustomResourceDefinition %q version %s has no schema", crd.Name, version)
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v1, internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %q version %s: %w", crd.Name, version, err)
	}
	return s, nil
}

// crdFor finds the CRD defining gvk's group and kind, and says whether it
// has gvk's version. A kind whose group is unknown (no +groupName and no
// GroupVersion literal) matches a CRD by kind alone.
func crdFor(crds []*apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind) (crd *apiextensionsv1.CustomResourceDefinition, hasVersion bool) {
	for _, c := range crds {
		if c.Spec.Names.Kind != gvk.Kind || (gvk.Group != "" && c.Spec.Group != gvk.Group) {
			continue
		}
		for _, v := range c.Spec.Versions {
			if v.Name == gvk.Version {
				return c, true
			}
		}
		crd = c
	}
	return crd, false
}
