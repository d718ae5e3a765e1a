// Package v1 is the testdata of the json-tag-name check: each "// want" comment
// lists the findings expected at its line.
// +groupName=jsontagname.test.crdguard.dev
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
	Replicas *int32 `json:",omitempty"` // want "error json-tag-name spec.Replicas: WidgetSpec.Replicas has an empty json name (`json:\",omitempty\"`): encoding/json writes it as \"Replicas\", while controller-gen inlines its schema"
	Dash     string `json:"-,"`         // want "error json-tag-name spec.-: WidgetSpec.Dash is tagged `json:\"-,\"`, which names it \"-\" rather than skipping it"
	Owner    string `json:"owner's"`    // want "error json-tag-name spec.Owner: WidgetSpec.Owner has the json name \"owner's\", which encoding/json ignores: it writes the field as \"Owner\""
	Image    string `json:"image"`
}
