// Package v1 is the testdata of the zero-number-default check: each "// want" comment
// lists the findings expected at its line.
// +groupName=zeronumberdefault.test.crdguard.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Database is the kind under test.
type Database struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DatabaseSpec `json:"spec,omitempty"`
}

type DatabaseSpec struct {
	// CloudNativePG's RoleConfiguration.ConnectionLimit: -1 is unlimited,
	// and 0 (no connections) turns into it.
	ConnectionLimit int64 `json:"connectionLimit,omitempty"` // want "warning zero-number-default spec.connectionLimit: DatabaseSpec.ConnectionLimit drops 0 on the wire (omitempty), and the default -1 takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns 0 into -1"
	// A minimum above 0 says 0 is never meant.
	StopDelay int32 `json:"stopDelay,omitempty"`
	// An enum listing 0 makes it a value of its own: zero-value-default.
	Shards int32 `json:"shards,omitempty"` // want "error zero-value-default spec.shards: DatabaseSpec.Shards drops 0 on the wire (omitempty), and the default 3 takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns 0 into 3"
}
