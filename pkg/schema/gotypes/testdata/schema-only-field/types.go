// Package v1 is the testdata of the schema-only-field check: each "// want" comment
// lists the findings expected at its line.
// +groupName=schemaonlyfield.test.crdguard.dev
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

type WidgetSpec struct { // want "warning schema-only-field spec.internal: the schema declares spec.internal, but WidgetSpec has no field written as \"internal\": the controller never reads it" "warning schema-only-field spec.legacy: the schema declares spec.legacy, but WidgetSpec has no field written as \"legacy\": the controller never reads it"
	Image string `json:"image,omitempty"`
	// Skipped in Go, but still in a hand-edited (or stale) schema.
	Internal string `json:"-"` // want "info ignored-field spec: WidgetSpec.Internal is tagged `json:\"-\"`: it never reaches the API server, so a value kept there is lost on the next read"
}
