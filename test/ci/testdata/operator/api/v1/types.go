package v1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Widget is a kind whose CRD matches it exactly.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// A struct value with omitempty is always sent; its zero value has
	// every required field, so that is fine.
	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// WidgetList is a list type, not a kind.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// WidgetSpec uses every tag and type encoding/json treats specially.
type WidgetSpec struct {
	// Embedded structs without a tag name are inlined, pointer or not.
	CommonSpec `json:",inline"`
	*Extras

	// Pointers send their zero value; nil is what omitempty leaves out.
	Replicas *int32 `json:"replicas,omitempty"`
	Paused   *bool  `json:"paused,omitempty"`
	// Required and always written.
	Image string `json:"image"`
	// A minimum above zero makes 0 invalid, so dropping it loses nothing;
	// an empty string means "unset".
	// +kubebuilder:validation:Minimum=1
	Size int32  `json:"size,omitempty"`
	Mode string `json:"mode,omitempty"`
	// ",string" writes the number as a string.
	Generation *int64 `json:"generation,omitempty,string"`

	Memory  resource.Quantity     `json:"memory,omitempty"`
	Port    intstr.IntOrString    `json:"port,omitempty"`
	Timeout *metav1.Duration      `json:"timeout,omitempty"`
	Started *metav1.Time          `json:"started,omitempty"`
	Config  *apiextensionsv1.JSON `json:"config,omitempty"`
	Object  runtime.RawExtension  `json:"object,omitempty"`
	Data    []byte                `json:"data,omitempty"`
	Tags    []string              `json:"tags,omitempty"`
	Labels  map[string]string     `json:"labels,omitempty"`
	Tier    Tier                  `json:"tier,omitempty"`
	// A required struct value: always sent, as it must be.
	Secret SecretRef `json:"secretRef"`
	// +optional
	Owner *string `json:"owner,omitempty"`
	// Shadowing: the shallower field wins, as encoding/json decides.
	Description string `json:"description,omitempty"`
}

// CommonSpec is inlined into WidgetSpec; its description is shadowed.
type CommonSpec struct {
	Description string `json:"description,omitempty"`
	Zone        string `json:"zone,omitempty"`
}

// Extras is inlined through an embedded pointer.
type Extras struct {
	Note string `json:"note,omitempty"`
}

// Tier is a named string with an enum.
type Tier string

// SecretRef names a Secret.
type SecretRef struct {
	Name string `json:"name"`
}

// WidgetStatus follows the API conventions for conditions.
type WidgetStatus struct {
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}
