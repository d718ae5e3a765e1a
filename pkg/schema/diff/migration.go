package diff

import (
	"fmt"
	"slices"
	"strings"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Migration is a storage version migration a CRD change needs: every
// stored object of Resource rewritten in the new storage version, so that
// the versions in From can leave status.storedVersions. The API server
// rewrites an object in the storage version only when it is written, and
// refuses to drop from spec.versions a version status.storedVersions
// still lists.
type Migration struct {
	// CRD is the CRD's name.
	CRD      string
	Resource metav1.GroupResource
	// From are the versions objects may still be stored in, To the new
	// storage version.
	From []string
	To   string
	// Reason says which change needs the migration.
	Reason string
}

// MigrationFor is the migration the change from old to crd needs, nil
// when it needs none: when the storage version moves, or when a version
// objects may be stored in (status.storedVersions, or the old storage
// version of a CRD read from a file, which has no status) is not in crd.
func MigrationFor(old, crd *apiextensionsv1.CustomResourceDefinition) *Migration {
	if old == nil || crd == nil {
		return nil
	}
	oldStorage, newStorage := storageVersion(old.Spec.Versions), storageVersion(crd.Spec.Versions)
	stored := slices.Clone(old.Status.StoredVersions)
	if oldStorage != "" && !slices.Contains(stored, oldStorage) {
		stored = append(stored, oldStorage)
	}
	var from, removed []string
	for _, v := range stored {
		if v == newStorage {
			continue
		}
		from = append(from, v)
		if _, i := findVersion(crd, v); i < 0 {
			removed = append(removed, v)
		}
	}
	var reason string
	switch {
	case oldStorage != newStorage:
		reason = fmt.Sprintf("the storage version moves from %s to %s", oldStorage, newStorage)
	case len(removed) > 0:
		reason = fmt.Sprintf("the new CRD removes %s, which status.storedVersions lists", strings.Join(removed, ", "))
	default:
		return nil
	}
	return &Migration{
		CRD: crd.Name, Resource: metav1.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural},
		From: from, To: newStorage, Reason: reason,
	}
}

// String says what the migration does and why.
func (m *Migration) String() string {
	return fmt.Sprintf("migrate the stored %s from %s to %s (%s)", m.Resource.String(), strings.Join(m.From, ", "), m.To, m.Reason)
}

// Name is the StorageVersionMigration's name: the resource and the
// version it migrates to, so that applying the same migration twice
// creates it once, cut to the longest name the API server accepts.
func (m *Migration) Name() string {
	suffix := "-to-" + m.To
	prefix := m.Resource.String()
	if n := validation.DNS1123SubdomainMaxLength - len(suffix); len(prefix) > n {
		prefix = strings.TrimRight(prefix[:n], ".-")
	}
	return prefix + suffix
}

// Object is the StorageVersionMigration to create. The API server's
// storage version migrator (in kube-controller-manager) rewrites every
// object of the resource in its storage version and, once it succeeds,
// trims the CRD's status.storedVersions to the storage version.
func (m *Migration) Object() *storagemigrationv1.StorageVersionMigration {
	return &storagemigrationv1.StorageVersionMigration{
		TypeMeta:   metav1.TypeMeta{APIVersion: storagemigrationv1.SchemeGroupVersion.String(), Kind: "StorageVersionMigration"},
		ObjectMeta: metav1.ObjectMeta{Name: m.Name()},
		Spec:       storagemigrationv1.StorageVersionMigrationSpec{Resource: m.Resource},
	}
}
