// Package v1 is the testdata of the ignored-field check: each "// want" comment
// lists the findings expected at its line.
// +groupName=ignoredfield.test.crdguard.dev
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
	Image string `json:"image,omitempty"`
	Cache string `json:"-"` // want "info ignored-field spec: WidgetSpec.Cache is tagged `json:\"-\"`: it never reaches the API server, so a value kept there is lost on the next read"
	count int    // want "info ignored-field spec: WidgetSpec.count is unexported: it never reaches the API server, so a value kept there is lost on the next read"
}

// Count keeps count in use.
func (s *WidgetSpec) Count() int { return s.count }
