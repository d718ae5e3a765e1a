package cluster

import (
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// LoadedPolicies is what one engine build made of the stored GuardPolicies:
// what their status reports.
type LoadedPolicies struct {
	// Schemas are the CRD schemas the policies were compiled against.
	Schemas *schema.Registry
	// Policies are keyed by name.
	Policies map[string]LoadedPolicy
}

// LoadedPolicy is one stored GuardPolicy as the engine has it.
type LoadedPolicy struct {
	// UID and Generation identify the stored version that was read.
	UID        types.UID
	Generation int64
	// Errs say what is wrong with that version, by field path; empty
	// when it compiled.
	Errs field.ErrorList
	// Policy is the version the engine evaluates: the stored one, or
	// the last good one when the stored one is invalid; nil when no
	// version was ever valid. PolicyGeneration is its generation.
	Policy           *v1alpha1.GuardPolicy
	PolicyGeneration int64
}

// Loaded returns what the last successful build made of the GuardPolicies,
// nil before the first.
func (s *Source) Loaded() *LoadedPolicies {
	s.book.mu.Lock()
	defer s.book.mu.Unlock()
	return s.book.loaded
}
