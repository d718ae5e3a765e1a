// Package v1 is the API of the operator repository that test/ci runs the
// CI examples against, as kubebuilder scaffolds one.
package v1

import "k8s.io/apimachinery/pkg/runtime/schema"

// GroupVersion is the API's group and version.
var GroupVersion = schema.GroupVersion{Group: "apps.example.io", Version: "v1"}
