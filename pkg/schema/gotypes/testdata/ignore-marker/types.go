// Package v1 is the testdata of the +crdguard:lint:ignore marker: each
// "// want" comment lists the findings expected at its line.
// +groupName=ignoremarker.test.crdguard.dev
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
	// +crdguard:lint:ignore=zero-value-default the operator reads false from its own flag
	Enabled bool `json:"enabled,omitempty"`
	// A marker silences only the checks it names.
	// +crdguard:lint:ignore=zero-value-omitted not this one
	Paused bool `json:"paused,omitempty"` // want "error zero-value-default spec.paused: WidgetSpec.Paused drops false on the wire (omitempty), and the default true takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns false into true"
	// On a field holding a third-party type, it silences what lies below.
	// +crdguard:lint:ignore=pruned-field,type-mismatch the operator sets its pods' metadata itself
	PodMetadata metav1.ObjectMeta `json:"podMetadata,omitempty"`
}
