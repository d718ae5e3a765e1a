// Package v1 is the testdata of the required-omitempty check: each "// want" comment
// lists the findings expected at its line.
// +groupName=requiredomitempty.test.crdguard.dev
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
	// +required
	Replicas int32 `json:"replicas,omitempty"` // want "warning required-omitempty spec.replicas: WidgetSpec.Replicas is required and 0 is a valid value, but omitempty drops it on the wire: setting it gets \"Required value\""
	// An empty name is invalid anyway: "Required value" is the right answer.
	// +required
	Name string `json:"name,omitempty"`
}
