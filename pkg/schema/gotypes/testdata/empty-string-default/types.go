// Package v1 is the testdata of the empty-string-default check: each "// want" comment
// lists the findings expected at its line.
// +groupName=emptystringdefault.test.crdguard.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Monitor is the kind under test.
type Monitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec MonitorSpec `json:"spec,omitempty"`
}

type MonitorSpec struct {
	// prometheus-operator's PortName: "" means "unset", and the default
	// is what unset means.
	PortName string `json:"portName,omitempty"` // want "info empty-string-default spec.portName: MonitorSpec.PortName drops \"\" on the wire (omitempty), and the default \"web\" takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns \"\" into \"web\""
	// A minLength says "" is never meant.
	Retention string `json:"retention,omitempty"`
}
