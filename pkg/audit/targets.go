package audit

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// Target is one kind to list.
type Target struct {
	// Resource is what is listed, at the version objects are read in.
	Resource schema.GroupVersionResource
	// Kind is Resource's kind at the same version.
	Kind schema.GroupVersionKind
	// Namespaced tells whether objects live in namespaces.
	Namespaced bool
}

// StorageVersions maps each CRD's kind to its storage version.
func StorageVersions(crds []*apiextensionsv1.CustomResourceDefinition) map[schema.GroupKind]string {
	storage := map[schema.GroupKind]string{}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				storage[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = v.Name
			}
		}
	}
	return storage
}

// Targets resolves the kinds the policies match to resources, once each,
// sorted by resource: a kind in storage at its storage version (how its
// objects are stored, so they are validated as the API server holds
// them), any other kind at mapper's preferred version. Kinds that cannot
// be audited (wildcards, kinds the cluster does not serve) are left out
// and each is explained in skipped. Any other failure to resolve a kind
// (discovery could not reach the cluster, or was refused) is an error: a
// kind that could not be looked up may well be served and hold objects,
// so leaving it out would report an audit of nothing as a clean one.
func Targets(guardPolicies []*v1alpha1.GuardPolicy, storage map[schema.GroupKind]string, mapper meta.RESTMapper) (targets []Target, skipped []string, err error) {
	seen := map[schema.GroupVersionResource]bool{}
	for _, p := range guardPolicies {
		for _, r := range p.Spec.Match.Resources {
			for _, kind := range r.Kinds {
				if kind == "*" || r.Group == "*" {
					skipped = append(skipped, fmt.Sprintf("policy %s: wildcard kinds or groups are not audited; name the kinds", p.Name))
					continue
				}
				gk := schema.GroupKind{Group: r.Group, Kind: kind}
				var versions []string
				if v, ok := storage[gk]; ok {
					versions = []string{v}
				}
				mapping, err := mapper.RESTMapping(gk, versions...)
				if meta.IsNoMatchError(err) {
					skipped = append(skipped, fmt.Sprintf("policy %s: %s is not served by the cluster: %v", p.Name, gk, err))
					continue
				}
				if err != nil {
					return nil, nil, fmt.Errorf("policy %s: looking up %s: %w", p.Name, gk, err)
				}
				if seen[mapping.Resource] {
					continue
				}
				seen[mapping.Resource] = true
				targets = append(targets, Target{Resource: mapping.Resource, Kind: mapping.GroupVersionKind, Namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace})
			}
		}
	}
	slices.SortFunc(targets, func(a, b Target) int { return strings.Compare(a.Resource.String(), b.Resource.String()) })
	return targets, skipped, nil
}
