// Package v1 is the testdata of the zero-value-default check: each "// want" comment
// lists the findings expected at its line.
// +groupName=zerovaluedefault.test.crdguard.dev
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
	Replicas int32  `json:"replicas,omitempty"` // want "warning zero-number-default spec.replicas: WidgetSpec.Replicas drops 0 on the wire (omitempty), and the default 3 takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns 0 into 3"
	Enabled  bool   `json:"enabled,omitzero"`   // want "error zero-value-default spec.enabled: WidgetSpec.Enabled drops false on the wire (omitzero), and the default true takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns false into true"
	Mode     string `json:"mode,omitempty"`     // want "info empty-string-default spec.mode: WidgetSpec.Mode drops \"\" on the wire (omitempty), and the default \"fast\" takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns \"\" into \"fast\""
	// A pointer sends 0, so the default applies only when it is unset.
	Workers *int32 `json:"workers,omitempty"`
	// Zeros the schema rejects are no loss: an enum without "", a minLength,
	// a pattern, a format, a minimum, an enum without false, a CEL rule.
	Tier   Tier   `json:"tier,omitempty"`
	Region string `json:"region,omitempty"`
	Prefix string `json:"prefix,omitempty"`
	Zone   string `json:"zone,omitempty"`
	Size   int32  `json:"size,omitempty"`
	Shards int32  `json:"shards,omitempty"`
	Locked bool   `json:"locked,omitempty"`
	// An enum listing "" makes "" a value of its own, which the default
	// then replaces.
	Level Level `json:"level,omitempty"` // want "error zero-value-default spec.level: WidgetSpec.Level drops \"\" on the wire (omitempty), and the default \"low\" takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns \"\" into \"low\""
}

type Tier string

type Level string
