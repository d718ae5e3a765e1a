// Package v1 is the testdata of the zero-value checks without a CRD, where
// markers decide: each "// want" comment
// lists the findings expected at its line.
// +groupName=markers.test.crdguard.dev
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
	// +kubebuilder:default=3
	Replicas int32 `json:"replicas,omitempty"` // want "warning zero-number-default spec.replicas: WidgetSpec.Replicas drops 0 on the wire (omitempty), and the default 3 takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns 0 into 3"
	// +kubebuilder:validation:Minimum=1
	Size   int32 `json:"size,omitempty"`
	Paused bool  `json:"paused,omitempty"` // want "info zero-value-omitted spec.paused: WidgetSpec.Paused drops its valid zero value false on the wire (omitempty): a client cannot tell the server to set it, and server-side apply gives the field up instead"
	// +required
	// +kubebuilder:validation:Minimum=0
	Index int32 `json:"index,omitempty"` // want "warning required-omitempty spec.index: WidgetSpec.Index is required and 0 is a valid value, but omitempty drops it on the wire: setting it gets \"Required value\""
	TLS   TLS   `json:"tls,omitempty"`   // want "error struct-always-sent spec.tls: WidgetSpec.TLS is a v1.TLS value, which omitempty never omits: unset, it is sent as its zero value without the required secretName, and the object is rejected"
	// A recursive type: the walk stops where it repeats.
	Tree Node `json:"tree"`
	// Zeros the markers reject are no loss: an enum without "" on the
	// field or on its type, a minLength, a pattern.
	// +kubebuilder:validation:Enum=Deny;Warn
	// +kubebuilder:default=Deny
	Action string `json:"action,omitempty"`
	// +kubebuilder:default=Fast
	Mode Mode `json:"mode,omitempty"`
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:default=eu
	Region string `json:"region,omitempty"`
	// +kubebuilder:validation:Pattern=`^[a-z]+$`
	// +kubebuilder:default=web
	Prefix string `json:"prefix,omitempty"`
	// An enum listing "": the default replaces a value of its own.
	// +kubebuilder:validation:Enum="";low;high
	// +kubebuilder:default=low
	Level string `json:"level,omitempty"` // want "error zero-value-default spec.level: WidgetSpec.Level drops \"\" on the wire (omitempty), and the default \"low\" takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns \"\" into \"low\""
	// The zero as the default: zero and unset are one.
	// +kubebuilder:default=false
	Debug bool `json:"debug,omitempty"`
}

// +kubebuilder:validation:Enum=Fast;Slow
type Mode string

type TLS struct {
	// +required
	SecretName string `json:"secretName,omitempty"`
}

type Node struct {
	Name     string `json:"name"`
	Children []Node `json:"children,omitempty"`
}
