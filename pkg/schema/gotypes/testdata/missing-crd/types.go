// Package v1 is the testdata of the missing-crd check: each "// want" comment
// lists the findings expected at its line.
// +groupName=missingcrd.test.crdguard.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget has no CRD at all.
type Widget struct { // want "error missing-crd <nil>: no CustomResourceDefinition defines kind Widget in group \"missingcrd.test.crdguard.dev\" for v1.Widget"
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// Gadget's CRD serves v2 only.
type Gadget struct { // want "error missing-crd <nil>: CustomResourceDefinition \"gadgets.missingcrd.test.crdguard.dev\" has no version v1 for v1.Gadget"
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// Gizmo's version is left out of its CRD on purpose: controller-gen skips
// a type marked +kubebuilder:skipversion, and so does lint.
// +kubebuilder:object:root=true
// +kubebuilder:skipversion
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GizmoSpec `json:"spec,omitempty"`
}

type GizmoSpec struct {
	Enabled bool `json:"enabled,omitempty"`
}
