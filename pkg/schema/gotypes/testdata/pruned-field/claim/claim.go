// Package claim holds a PersistentVolumeClaim-like type for the pruned-field
// testdata: a Kubernetes object of its own, used as a template.
package claim

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Claim is shaped like a PersistentVolumeClaim: a Kubernetes object of its
// own, with a status.
type Claim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClaimSpec   `json:"spec,omitempty"`
	Status ClaimStatus `json:"status,omitempty"`
}

type ClaimSpec struct {
	StorageClassName *string `json:"storageClassName,omitempty"`
}

type ClaimStatus struct {
	Phase string `json:"phase,omitempty"`
}
