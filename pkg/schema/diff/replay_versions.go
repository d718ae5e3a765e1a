package diff

import (
	"reflect"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// ReplayVersions are the versions of crd whose stored objects Replay must
// see: those both CRDs serve whose schema, subresources or selectable
// fields change. Listing any served version returns every stored object of
// the kind, converted to it; a version the old CRD does not serve cannot
// be listed, and a version the new one drops is the diff's business
// (version-removed), not the replay's. The webhook's /validate-crd and
// `crdguard diff --objects cluster` list the same versions.
func ReplayVersions(old, crd *apiextensionsv1.CustomResourceDefinition) []string {
	var changed []string
	for _, v := range crd.Spec.Versions {
		i := slices.IndexFunc(old.Spec.Versions, func(o apiextensionsv1.CustomResourceDefinitionVersion) bool { return o.Name == v.Name })
		if i < 0 || !old.Spec.Versions[i].Served || !v.Served {
			continue
		}
		o := old.Spec.Versions[i]
		if reflect.DeepEqual(o.Schema, v.Schema) && reflect.DeepEqual(o.Subresources, v.Subresources) && reflect.DeepEqual(o.SelectableFields, v.SelectableFields) {
			continue
		}
		changed = append(changed, v.Name)
	}
	return changed
}
