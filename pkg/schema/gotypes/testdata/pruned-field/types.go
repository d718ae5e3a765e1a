// Package v1 is the testdata of the pruned-field check: each "// want" comment
// lists the findings expected at its line.
// +groupName=prunedfield.test.crdguard.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/pruned-field/claim"
)

// Widget is the kind under test.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}

type WidgetSpec struct {
	Image    string   `json:"image,omitempty"`
	Replicas *int32   `json:"replicas,omitempty"` // want "error pruned-field spec.replicas: WidgetSpec.Replicas is written as spec.replicas, but the schema does not declare it: the API server prunes it on every write"
	Template Template `json:"template,omitempty"`
	// controller-gen's embedded ObjectMeta (generateEmbeddedObjectMeta)
	// declares what a user writes in a template; uid, resourceVersion and
	// the other fields the API server sets are pruned harmlessly. Labels,
	// which the schema leaves out here, are a user's loss.
	PodMetadata metav1.ObjectMeta `json:"podMetadata,omitempty"` // want "error pruned-field spec.podMetadata.labels: ObjectMeta.Labels is written as spec.podMetadata.labels, but the schema does not declare it: the API server prunes it on every write"
	// A claim template's status (a PersistentVolumeClaim's) is the API
	// server's to set on the claim it stores, never written in the template.
	VolumeClaimTemplates []claim.Claim `json:"volumeClaimTemplates,omitempty"`
}

type Template struct {
	// A pod-template-like metadata that the schema leaves as a bare object.
	Metadata metav1.ObjectMeta `json:"metadata,omitempty"` // want "error pruned-field spec.template.metadata: Template.Metadata is a v1.ObjectMeta, but the schema declares an object without properties: the API server prunes every field of it"
	Image    string            `json:"image,omitempty"`
}
