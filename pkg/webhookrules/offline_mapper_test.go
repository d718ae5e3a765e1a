package webhookrules

import (
	"slices"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/crdguard/crdguard/pkg/schema"
)

// TestBuiltinResources: the plural OfflineMapper gives every built-in kind
// is a resource client-go has an informer for, so the guess is the
// resource the API server serves.
func TestBuiltinResources(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	mapper := OfflineMapper(nil)
	var unknown []string
	for gvk := range BuiltinKinds() {
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Errorf("%s: %v", gvk, err)
			continue
		}
		if _, err := factory.ForResource(m.Resource); err != nil {
			unknown = append(unknown, m.Resource.String())
		}
	}
	slices.Sort(unknown)
	if len(unknown) > 0 {
		t.Errorf("no informer for %d resources: %v", len(unknown), unknown)
	}
	if n := len(BuiltinKinds()); n < 50 {
		t.Errorf("%d built-in kinds; client-go's scheme has more than 50", n)
	}
}

func TestOfflineMapperMapsCRDs(t *testing.T) {
	reg, err := schema.RegistryFromFiles(t.Context(), "../../examples/mysql/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := OfflineMapper(reg).RESTMapping(reg.Kinds()[0].GroupKind())
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Resource.String(); got != "db.example.io/v1, Resource=mysqlclusters" {
		t.Errorf("MySQLCluster maps to %s", got)
	}
}
