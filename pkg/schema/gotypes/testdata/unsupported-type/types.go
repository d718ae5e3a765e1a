// Package v1 is the testdata of the unsupported-type check: each "// want" comment
// lists the findings expected at its line.
// +groupName=unsupportedtype.test.crdguard.dev
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
	Image    string `json:"image,omitempty"`
	OnChange func() `json:"onChange,omitempty"` // want "error unsupported-type spec.onChange: WidgetSpec.OnChange has type func(), which json.Marshal cannot encode"
}
