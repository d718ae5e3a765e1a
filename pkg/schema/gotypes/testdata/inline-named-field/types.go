// Package v1 is the testdata of the inline-named-field check: each "// want" comment
// lists the findings expected at its line.
// +groupName=inlinenamedfield.test.crdguard.dev
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
	// Common is inlined by both encoding/json and controller-gen.
	Common  `json:",inline"`
	Storage Storage `json:"storage,inline"` // want "error inline-named-field spec.storage: WidgetSpec.Storage is tagged `json:\"storage,inline\"`, but encoding/json ignores \",inline\" and writes it as an object under \"storage\", while controller-gen inlines its fields"
}

type Common struct {
	Name string `json:"name,omitempty"`
}

type Storage struct {
	Size string `json:"size,omitempty"`
}
