// Package v1 is the testdata of the opaque-type check: each "// want" comment
// lists the findings expected at its line.
// +groupName=opaquetype.test.crdguard.dev
package v1

import (
	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is the kind under test.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}

type WidgetSpec struct {
	Color Color `json:"color"` // want "info opaque-type spec.color: WidgetSpec.Color has type v1.Color, whose custom MarshalJSON decides its JSON form: not compared with the schema"
}

// Color is written as "#rrggbb" by its own MarshalJSON.
type Color struct {
	R, G, B uint8
}

func (c Color) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`"#%02x%02x%02x"`, c.R, c.G, c.B)), nil
}
