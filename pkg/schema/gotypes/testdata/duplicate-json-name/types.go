// Package v1 is the testdata of the duplicate-json-name check: each "// want" comment
// lists the findings expected at its line.
// +groupName=duplicatejsonname.test.crdguard.dev
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
	Primary `json:",inline"`
	// Embedded through a pointer, which encoding/json inlines all the same.
	*Secondary
	Image string `json:"image,omitempty"`
}

type Primary struct {
	Name string `json:"name,omitempty"` // want "error duplicate-json-name spec.name: Primary.Name is written as \"name\", as is another field at the same embedding depth: encoding/json writes neither"
}

type Secondary struct {
	Name string `json:"name,omitempty"` // want "error duplicate-json-name spec.name: Secondary.Name is written as \"name\", as is another field at the same embedding depth: encoding/json writes neither"
}
