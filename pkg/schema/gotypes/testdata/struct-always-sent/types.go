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

	Spec WidgetSpec `json:"spec,omitempty"`
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
