// Package v1 is the testdata of the zero-value-omitted check: each "// want" comment
// lists the findings expected at its line.
// +groupName=zerovalueomitted.test.crdguard.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is the kind under test.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
	// Only the controller writes status, and every reader sees its zeros.
	Status WidgetStatus `json:"status,omitempty"`
}

type WidgetStatus struct {
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

type WidgetSpec struct {
	Replicas int32 `json:"replicas,omitempty"` // want "info zero-value-omitted spec.replicas: WidgetSpec.Replicas drops its valid zero value 0 on the wire (omitempty): a client cannot tell the server to set it, and server-side apply gives the field up instead"
	Paused   bool  `json:"paused,omitempty"`   // want "info zero-value-omitted spec.paused: WidgetSpec.Paused drops its valid zero value false on the wire (omitempty): a client cannot tell the server to set it, and server-side apply gives the field up instead"
	// An enum may list "", but every reader sees "" whether it was sent
	// or not.
	Tier string `json:"tier,omitempty"`
	// The schema's minimum excludes 0, and an empty name means "unset".
	Port int32  `json:"port,omitempty"`
	Name string `json:"name,omitempty"`
	// The zero as the default: zero and unset are one.
	Debug    bool  `json:"debug,omitempty"`
	Priority int32 `json:"priority,omitempty"`
	// A CEL rule and an enum reject the zero.
	Weight int32 `json:"weight,omitempty"`
	Locked bool  `json:"locked,omitempty"`
}
