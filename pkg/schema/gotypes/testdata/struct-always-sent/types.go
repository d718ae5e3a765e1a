// Package v1 is the testdata of the struct-always-sent check: each "// want" comment
// lists the findings expected at its line.
// +groupName=structalwayssent.test.crdguard.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is the kind under test.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The kubebuilder scaffold: a Widget without a spec is never meant,
	// so its required fields are the user's to fill, not a defect.
	Spec WidgetSpec `json:"spec,omitempty"`
	// With the status subresource, the API server drops status on writes
	// to the main resource: its zero value is never validated there.
	Status WidgetStatus `json:"status,omitempty"`
}

type WidgetStatus struct {
	Phase string `json:"phase,omitempty"`
}

// Gadget is served without the status subresource: its status is
// validated on create, and the zero value lacks the required phase.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Status GadgetStatus `json:"status,omitempty"` // want "error struct-always-sent status: Gadget.Status is a v1.GadgetStatus value, which omitempty never omits: unset, it is sent as its zero value without the required phase, and the object is rejected"
}

type GadgetStatus struct {
	Phase string `json:"phase,omitempty"`
}

type WidgetSpec struct {
	TLS TLS `json:"tls,omitempty"` // want "error struct-always-sent spec.tls: WidgetSpec.TLS is a v1.TLS value, which omitempty never omits: unset, it is sent as its zero value without the required secretName, and the object is rejected"
	// omitzero omits the zero struct, and Limits' zero value has its
	// required field.
	Backup Backup `json:"backup,omitzero"`
	Limits Limits `json:"limits,omitempty"`
}

type TLS struct {
	SecretName string `json:"secretName,omitempty"`
}

type Backup struct {
	Bucket string `json:"bucket,omitempty"`
}

type Limits struct {
	CPU string `json:"cpu"`
}
