// Package v1 is the clean testdata: every pattern here is tricky but
// correct, and linting it against crd.yaml must find nothing. Its group comes
// from the GroupVersion literal, as in a kubebuilder scaffold.
package v1

import "k8s.io/apimachinery/pkg/runtime/schema"

// GroupVersion is read by the linter for the group, as kubebuilder's
// groupversion_info.go is by controller-gen's users.
var GroupVersion = schema.GroupVersion{Group: "clean.test.crdguard.dev", Version: "v1"}
