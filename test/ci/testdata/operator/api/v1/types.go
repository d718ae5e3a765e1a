package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// Cache is the operator's one kind.
type Cache struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CacheSpec `json:"spec,omitempty"`
}

// CacheSpec is what a Cache asks for.
type CacheSpec struct {
	// Replicas is how many servers run.
	// +kubebuilder:validation:Minimum=1
	Replicas int32 `json:"replicas"`
	// Memory each server may use.
	// +optional
	Memory string `json:"memory,omitempty"`
}
