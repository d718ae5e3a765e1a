package audit

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func policy(name string, resources ...v1alpha1.ResourceMatch) *v1alpha1.GuardPolicy {
	return &v1alpha1.GuardPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.GuardPolicySpec{Match: v1alpha1.Match{Resources: resources}},
	}
}

func TestTargets(t *testing.T) {
	widgetsV1 := schema.GroupVersion{Group: "example.io", Version: "v1"}
	widgetsV2 := schema.GroupVersion{Group: "example.io", Version: "v2"}
	apps := schema.GroupVersion{Group: "apps", Version: "v1"}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{widgetsV2, widgetsV1, apps})
	// v2 is preferred, but objects are stored as v1.
	mapper.Add(widgetsV2.WithKind("Widget"), meta.RESTScopeNamespace)
	mapper.Add(widgetsV1.WithKind("Widget"), meta.RESTScopeNamespace)
	mapper.Add(widgetsV1.WithKind("Gadget"), meta.RESTScopeRoot)
	mapper.Add(apps.WithKind("Deployment"), meta.RESTScopeNamespace)
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.io", Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v2"}, {Name: "v1", Storage: true}},
	}}

	targets, skipped, err := Targets([]*v1alpha1.GuardPolicy{
		policy("widgets", v1alpha1.ResourceMatch{Group: "example.io", Kinds: []string{"Widget", "Gadget"}}),
		// The same kind again is listed once.
		policy("again", v1alpha1.ResourceMatch{Group: "example.io", Kinds: []string{"Widget"}},
			v1alpha1.ResourceMatch{Group: "apps", Kinds: []string{"Deployment"}}),
		policy("wild", v1alpha1.ResourceMatch{Group: "*", Kinds: []string{"Widget"}}),
		policy("gone", v1alpha1.ResourceMatch{Group: "example.io", Kinds: []string{"Gizmo"}}),
	}, StorageVersions([]*apiextensionsv1.CustomResourceDefinition{crd}), mapper)
	if err != nil {
		t.Fatal(err)
	}

	want := []Target{
		{Resource: apps.WithResource("deployments"), Kind: apps.WithKind("Deployment"), Namespaced: true},
		{Resource: widgetsV1.WithResource("gadgets"), Kind: widgetsV1.WithKind("Gadget")},
		{Resource: widgetsV1.WithResource("widgets"), Kind: widgetsV1.WithKind("Widget"), Namespaced: true},
	}
	if diff := cmp.Diff(want, targets); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	wantSkipped := []string{
		"policy wild: wildcard kinds or groups are not audited; name the kinds",
		`policy gone: Gizmo.example.io is not served by the cluster: no matches for example.io/, Resource=Gizmo`,
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// unreachableMapper fails every lookup as discovery does when the API
// server cannot be reached.
type unreachableMapper struct{ meta.RESTMapper }

func (unreachableMapper) RESTMapping(schema.GroupKind, ...string) (*meta.RESTMapping, error) {
	return nil, errors.New(`Get "https://127.0.0.1:1/api": dial tcp 127.0.0.1:1: connect: connection refused`)
}

// A kind that could not be looked up is not a kind the cluster does not
// serve: leaving it out would make an audit of nothing look clean.
func TestTargetsLookupFailure(t *testing.T) {
	targets, skipped, err := Targets([]*v1alpha1.GuardPolicy{
		policy("widgets", v1alpha1.ResourceMatch{Group: "example.io", Kinds: []string{"Widget"}}),
	}, nil, unreachableMapper{})
	const want = `policy widgets: looking up Widget.example.io: Get "https://127.0.0.1:1/api": dial tcp 127.0.0.1:1: connect: connection refused`
	if err == nil || err.Error() != want || targets != nil || skipped != nil {
		t.Errorf("Targets = %v, %q, %v; want the error %q", targets, skipped, err, want)
	}
}
