package schema

import (
	"fmt"
	"strings"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/endpoints/handlers"
)

// The API server's request handlers change metadata before the strategy
// validates it; these functions do the same, so an object the server
// accepts is not denied here.

// storedCreationTimestamp stands in for the creationTimestamp every stored
// object has, when an old object read from a file has none.
var storedCreationTimestamp = metav1.NewTime(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))

// resetManagedFields does what the field manager does with managedFields
// it cannot decode: drops them on create, keeps the stored ones on update.
func resetManagedFields(obj, old *unstructured.Unstructured) {
	if managedfields.ValidateManagedFields(obj.GetManagedFields()) == nil {
		return
	}
	if old == nil {
		obj.SetManagedFields(nil)
		return
	}
	obj.SetManagedFields(old.GetManagedFields())
}

// dedupOwnerReferences removes owner references equal to an earlier one, as
// the server does, and returns the server's warning about them.
func dedupOwnerReferences(obj *unstructured.Unstructured) []string {
	refs := obj.GetOwnerReferences()
	var kept []metav1.OwnerReference
	var duplicates []string
	for _, ref := range refs {
		if containsOwnerReference(kept, ref) {
			duplicates = append(duplicates, string(ref.UID))
			continue
		}
		kept = append(kept, ref)
	}
	if len(duplicates) == 0 {
		return nil
	}
	obj.SetOwnerReferences(kept)
	return []string{fmt.Sprintf(handlers.DuplicateOwnerReferencesWarningFormat, strings.Join(duplicates, ", "))}
}

func containsOwnerReference(refs []metav1.OwnerReference, ref metav1.OwnerReference) bool {
	for _, r := range refs {
		if r.UID == ref.UID && apiequality.Semantic.DeepEqual(r, ref) {
			return true
		}
	}
	return false
}
