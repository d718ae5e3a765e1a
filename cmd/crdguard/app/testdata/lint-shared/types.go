// Package v1 has two kinds that share one spec type, as external-secrets'
// SecretStore and ClusterSecretStore do: a mistake in the shared type is
// one finding that names both kinds.
// +groupName=shared.test.crdguard.dev
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// Store is namespaced.
type Store struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              StoreSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// ClusterStore is cluster-scoped.
type ClusterStore struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              StoreSpec `json:"spec"`
}

// StoreSpec is shared by both kinds.
type StoreSpec struct {
	// +kubebuilder:default=true
	Verify bool `json:"verify,omitempty"`
}
