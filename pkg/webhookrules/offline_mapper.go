package webhookrules

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/crdguard/crdguard/pkg/schema"
)

// OfflineMapper maps the served kinds of the CRDs in schemas (nil: none),
// by their spec.names.plural, and the built-in kinds of client-go's scheme,
// for computing rules without a cluster. A CRD's kind wins over a
// built-in kind of the same group.
//
// Built-in kinds are those with a list kind (<Kind>List) in the scheme,
// mapped by apimachinery's plural of the kind, which is the resource of
// every built-in kind (the test proves it against client-go's informers).
// Scopes are not in the scheme, and Compute does not use them: every kind
// is mapped as namespaced.
func OfflineMapper(schemas *schema.Registry) meta.RESTMapper {
	var crds []runtimeschema.GroupVersionKind
	custom := map[runtimeschema.GroupKind]bool{}
	if schemas != nil {
		crds = schemas.Kinds()
		for _, gvk := range crds {
			custom[gvk.GroupKind()] = true
		}
	}
	var builtin []runtimeschema.GroupVersionKind
	for gvk := range BuiltinKinds() {
		if !custom[gvk.GroupKind()] {
			builtin = append(builtin, gvk)
		}
	}
	// RESTMappings without versions looks in every group/version the
	// mapper is given, in order.
	var groupVersions []runtimeschema.GroupVersion
	for _, gvk := range append(slices.Clone(crds), builtin...) {
		groupVersions = append(groupVersions, gvk.GroupVersion())
	}
	slices.SortFunc(groupVersions, func(a, b runtimeschema.GroupVersion) int { return strings.Compare(a.String(), b.String()) })
	mapper := meta.NewDefaultRESTMapper(slices.Compact(groupVersions))
	for _, gvk := range crds {
		plural, _ := schemas.Resource(gvk.GroupKind())
		gv := gvk.GroupVersion()
		mapper.AddSpecific(gvk, gv.WithResource(plural), gv.WithResource(strings.ToLower(gvk.Kind)), meta.RESTScopeNamespace)
	}
	for _, gvk := range builtin {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	return mapper
}

// BuiltinKinds are the kinds of client-go's scheme that have a list kind,
// less apimachinery's own (APIGroup and APIGroupList are discovery
// documents, not resources): the kinds of the built-in resources.
func BuiltinKinds() map[runtimeschema.GroupVersionKind]bool {
	known := clientgoscheme.Scheme.AllKnownTypes()
	out := map[runtimeschema.GroupVersionKind]bool{}
	for gvk := range known {
		list, ok := strings.CutSuffix(gvk.Kind, "List")
		if !ok || list == "" {
			continue
		}
		kind := gvk.GroupVersion().WithKind(list)
		if t, ok := known[kind]; ok && !strings.HasPrefix(t.PkgPath(), "k8s.io/apimachinery/") {
			out[kind] = true
		}
	}
	return out
}
