// Package v1 is the testdata of the type-mismatch check: each "// want" comment
// lists the findings expected at its line.
// +groupName=typemismatch.test.crdguard.dev
package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Widget is the kind under test.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}

type WidgetSpec struct {
	Replicas *int32               `json:"replicas,omitempty"` // want "error type-mismatch spec.replicas: WidgetSpec.Replicas is written as an integer (Go int32), but the schema wants a string"
	Ports    []int32              `json:"ports,omitempty"`    // want "error type-mismatch spec.ports: WidgetSpec.Ports is written as an array (Go []int32), but the schema wants an object"
	Memory   resource.Quantity    `json:"memory,omitempty"`   // want "error type-mismatch spec.memory: WidgetSpec.Memory is written as a string (Go resource.Quantity), but the schema wants a number"
	Ratio    *float64             `json:"ratio,omitempty"`    // want "error type-mismatch spec.ratio: WidgetSpec.Ratio is written as a number (Go float64), but the schema wants an integer"
	Labels   map[string]string    `json:"labels,omitempty"`   // want "error type-mismatch spec.labels: WidgetSpec.Labels is written as an object (Go map[string]string), but the schema declares an object with fixed properties and no additionalProperties: the API server prunes every other key"
	Extra    runtime.RawExtension `json:"extra,omitempty"`    // want "error type-mismatch spec.extra: WidgetSpec.Extra is written as free-form JSON (Go runtime.RawExtension), but the schema declares an object that is not x-kubernetes-preserve-unknown-fields: the API server prunes every field it does not declare"
	Count    intstr.IntOrString   `json:"count,omitempty"`    // want "error type-mismatch spec.count: WidgetSpec.Count is written as an integer or a string (Go intstr.IntOrString), but the schema wants an integer"
	Items    []Item               `json:"items,omitempty"`    // want "error type-mismatch spec.items[*]: WidgetSpec.Items[*] is written as an object (Go v1.Item), but the schema wants a string"
}

type Item struct {
	Name string `json:"name,omitempty"`
}
