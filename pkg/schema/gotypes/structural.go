package gotypes

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Structural is the API server's structural schema: the form pruning,
// defaulting and validation work on. It is compared as is, never rebuilt.
type Structural = structuralschema.Structural

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

// statusSubresource tells whether crd serves version with the status
// subresource, with which the API server drops status on writes to the
// main resource.
func statusSubresource(crd *apiextensionsv1.CustomResourceDefinition, version string) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			return v.Subresources != nil && v.Subresources.Status != nil
		}
	}
	return false
}
