// Package v1 is an API in a module of its own, nested in the operator's
// repository as prometheus-operator's pkg/apis/monitoring and flux's api are.
// +groupName=nested.test.crdguard.dev
package v1

// +kubebuilder:object:root=true

// Widget is the module's one kind.
type Widget struct {
	APIVersion string     `json:"apiVersion,omitempty"`
	Kind       string     `json:"kind,omitempty"`
	Spec       WidgetSpec `json:"spec"`
}

// WidgetSpec has one mistake for lint to find.
type WidgetSpec struct {
	// +kubebuilder:default=true
	Enabled bool `json:"enabled,omitempty"`
}
