package diff

import (
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// migrationCRD is a CRD of widgets.example.io with versions, the one
// named storage stored, and status.storedVersions stored.
func migrationCRD(storage string, stored []string, versions ...string) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.io", Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: stored},
	}
	for _, v := range versions {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: true, Storage: v == storage})
	}
	return crd
}

func TestMigrationFor(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new *apiextensionsv1.CustomResourceDefinition
		want     string // Migration.String(), "" for none
	}{
		{name: "unchanged storage", old: migrationCRD("v1", nil, "v1"), new: migrationCRD("v1", nil, "v1", "v2")},
		{name: "storage moves, file", old: migrationCRD("v1", nil, "v1"), new: migrationCRD("v2", nil, "v1", "v2"),
			want: "migrate the stored widgets.example.io from v1 to v2 (the storage version moves from v1 to v2)"},
		{name: "storage moves, stored in two", old: migrationCRD("v2", []string{"v1", "v2"}, "v1", "v2", "v3"), new: migrationCRD("v3", nil, "v2", "v3"),
			want: "migrate the stored widgets.example.io from v1, v2 to v3 (the storage version moves from v2 to v3)"},
		{name: "stored version removed", old: migrationCRD("v2", []string{"v1", "v2"}, "v1", "v2"), new: migrationCRD("v2", nil, "v2"),
			want: "migrate the stored widgets.example.io from v1 to v2 (the new CRD removes v1, which status.storedVersions lists)"},
		// Still served and stored: nothing asks for the migration yet.
		{name: "stored version kept", old: migrationCRD("v2", []string{"v1", "v2"}, "v1", "v2"), new: migrationCRD("v2", nil, "v1", "v2")},
		{name: "migrated", old: migrationCRD("v2", []string{"v2"}, "v1", "v2"), new: migrationCRD("v2", nil, "v2")},
		{name: "added CRD", new: migrationCRD("v1", nil, "v1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := MigrationFor(tc.old, tc.new)
			got := ""
			if m != nil {
				got = m.String()
			}
			if got != tc.want {
				t.Errorf("MigrationFor = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMigrationObject(t *testing.T) {
	m := MigrationFor(migrationCRD("v1", nil, "v1"), migrationCRD("v2", nil, "v1", "v2"))
	obj := m.Object()
	if obj.APIVersion != "storagemigration.k8s.io/v1" || obj.Kind != "StorageVersionMigration" || obj.Name != "widgets.example.io-to-v2" ||
		obj.Spec.Resource != (metav1.GroupResource{Group: "example.io", Resource: "widgets"}) {
		t.Errorf("Object() = %+v", obj)
	}
	// A name past 253 characters is cut, keeping the version.
	long := &Migration{Resource: metav1.GroupResource{Group: strings.Repeat("g", 250) + ".io", Resource: "widgets"}, To: "v2"}
	if name := long.Name(); len(name) != 253 || !strings.HasSuffix(name, "g-to-v2") {
		t.Errorf("Name() of a long resource = %q (%d characters), want 253 ending in the version", name, len(name))
	}
}

func TestReplayVersions(t *testing.T) {
	old := migrationCRD("v1", nil, "v1", "v2", "v3")
	old.Spec.Versions[2].Served = false
	crd := old.DeepCopy()
	crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v4", Served: true})
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}
	}
	crd.Spec.Versions[1].Schema = nil // v2 unchanged
	// v1 changed; v2 unchanged; v3 not served by the old CRD; v4 new.
	if got := ReplayVersions(old, crd); !slices.Equal(got, []string{"v1"}) {
		t.Errorf("ReplayVersions = %v, want [v1]", got)
	}
}
