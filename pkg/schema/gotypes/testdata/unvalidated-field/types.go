// Package v1 is the testdata of the unvalidated-field check: each "// want" comment
// lists the findings expected at its line.
// +groupName=unvalidatedfield.test.crdguard.dev
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
	Config Config `json:"config,omitempty"`
}

type Config struct {
	Level  string `json:"level,omitempty"`
	Format string `json:"format,omitempty"` // want "warning unvalidated-field spec.config.format: Config.Format is written as spec.config.format, which the schema keeps (x-kubernetes-preserve-unknown-fields) but does not declare: its value is never validated"
}
