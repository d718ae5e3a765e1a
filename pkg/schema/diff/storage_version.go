package diff

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

var storageVersionMoved = Check{
	Name:   "storage-version-moved",
	Doc:    "the storage version changed",
	Claims: []string{"spec.versions.*.storage"},
	CRD: func(p *CRDPair) []Change {
		oldStorage, newStorage := storageVersion(p.Old.Spec.Versions), storageVersion(p.New.Spec.Versions)
		if oldStorage == newStorage {
			return nil
		}
		// Objects are rewritten in the new version only when written again:
		// until a storage migration runs, etcd holds both, and the old one
		// stays in status.storedVersions.
		return []Change{{
			Impact: Warning, Version: newStorage, Path: p.VersionPath(newStorage).Child("storage").String(),
			Old: oldStorage, New: newStorage,
			Message: "stored objects stay in the old version until rewritten: migrate them before removing it from status.storedVersions",
		}}
	},
}

func storageVersion(versions []apiextensionsv1.CustomResourceDefinitionVersion) string {
	for _, v := range versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}
