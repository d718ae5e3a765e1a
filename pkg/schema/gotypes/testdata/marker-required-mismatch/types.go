// Package v1 is the testdata of the marker-required-mismatch check: each "// want" comment
// lists the findings expected at its line.
// +groupName=markerrequiredmismatch.test.crdguard.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is the kind under test.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec"`
}

type WidgetSpec struct {
	// +optional
	Image *string `json:"image,omitempty"` // want "error marker-required-mismatch spec.image: WidgetSpec.Image is marked +optional, but the schema requires image: objects without it are rejected"
	// +kubebuilder:validation:Required
	Size *string `json:"size,omitempty"` // want "error marker-required-mismatch spec.size: WidgetSpec.Size is marked +kubebuilder:validation:Required, but the schema does not require size: objects without it are accepted"
	// +required
	Name *string `json:"name,omitempty"`
}
