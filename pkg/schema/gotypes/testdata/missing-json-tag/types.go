// Package v1 is the testdata of the missing-json-tag check: each "// want" comment
// lists the findings expected at its line.
// +groupName=missingjsontag.test.crdguard.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is the kind under test.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}

type WidgetSpec struct {
	Replicas int32  // want "error missing-json-tag spec.Replicas: WidgetSpec.Replicas has no json tag: encoding/json writes it as \"Replicas\" and controller-gen refuses to generate its schema"
	Image    string `json:"image,omitempty"`
}
