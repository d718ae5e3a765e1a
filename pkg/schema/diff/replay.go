package diff

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/schema"
)

// ReplayClass says how a new CRD holds a field of a stored object against
// it. Every class is an error: each is a stored object the upgrade leaves
// unable to be written as it is, and `crdguard diff --objects` and
// /validate-crd both fail on it.
type ReplayClass string

const (
	// RejectedOnUpdate: the object's next write, even one that changes
	// nothing in it (a label, a status update), is rejected.
	RejectedOnUpdate ReplayClass = "rejected-on-update"
	// RatchetTolerated: the next write passes only because ratcheting
	// tolerates the unchanged invalid value; changing the value, or
	// re-creating the object (a restore from backup, a GitOps re-sync), is
	// rejected.
	RatchetTolerated ReplayClass = "ratchet-tolerated"
	// Pruned: the new schema does not declare the field, so the object's
	// next write drops it: data lost, not rejected.
	Pruned ReplayClass = "pruned"
)

// ReplayFinding is one field of a stored object the new CRD does not keep
// as it is.
type ReplayFinding struct {
	Class ReplayClass
	// Error is the API server's error at the field's path: Error.Field is
	// the path as the API server prints it (spec.size), Error.ErrorBody()
	// its message.
	Error *field.Error
}

// Message says which of the classes the finding is, then what the API
// server says.
func (f ReplayFinding) Message() string {
	switch f.Class {
	case RejectedOnUpdate:
		return "rejected on update: the object's next write fails: " + f.Error.ErrorBody()
	case RatchetTolerated:
		return "ratchet-tolerated: the object's next write passes only while this value is unchanged; changing it or re-creating the object fails: " + f.Error.ErrorBody()
	}
	// The API server has no message of its own for a pruned field: it
	// drops it without a word (and fails decoding only under Strict).
	return "pruned: the new schema does not declare this field, so the object's next write drops it"
}

// String is the finding as one line: its path, then its message.
func (f ReplayFinding) String() string {
	return f.Error.Field + ": " + f.Message()
}

// Replay validates a stored object against the new CRDs in registry, as an
// update of itself and as a create. The update is what the object's next
// write is held to (transition rules, ratcheting, the served versions);
// the create is what it would be held to without ratcheting, which alone
// would hide exactly what a narrowed schema breaks (a value above a
// lowered maximum). Unknown fields are pruned, whichever way it is
// written. An object of a kind no CRD in registry defines is a
// *schema.NoSchemaError.
func Replay(ctx context.Context, registry *schema.Registry, obj *unstructured.Unstructured) ([]ReplayFinding, error) {
	onUpdate, err := registry.Validate(ctx, obj, obj)
	if err != nil {
		return nil, err
	}
	onCreate, err := registry.Validate(ctx, obj, nil)
	if err != nil {
		return nil, err
	}
	var findings []ReplayFinding
	seen := map[string]bool{}
	for _, e := range onUpdate {
		seen[errorKey(e)] = true
		class := RejectedOnUpdate
		if schema.IsUnknownField(e) {
			class = Pruned
		}
		findings = append(findings, ReplayFinding{Class: class, Error: e})
	}
	for _, e := range onCreate {
		if seen[errorKey(e)] || schema.IsUnknownField(e) {
			continue
		}
		findings = append(findings, ReplayFinding{Class: RatchetTolerated, Error: e})
	}
	return findings, nil
}

// errorKey identifies an error across the update and the create.
func errorKey(e *field.Error) string {
	return e.Field + "\x00" + string(e.Type) + "\x00" + e.Detail
}
