package cluster

import (
	"fmt"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/policies/vap"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Mode says where GuardPolicy rules are enforced on admission
// (--enforcement).
type Mode string

const (
	// ModeWebhook: the webhook evaluates every rule. The default.
	ModeWebhook Mode = "webhook"
	// ModeVAP: the ValidatingAdmissionPolicies `crdguard vap` compiles
	// are installed and enforce every rule they can; the webhook evaluates
	// only the rest (defaults, approvals, what CEL cannot express), so no
	// request pays twice for a rule.
	ModeVAP Mode = "vap"
	// ModeBoth: the compiled policies are installed and the webhook
	// still evaluates every rule, so the compiled rules keep being enforced
	// while the webhook is down.
	ModeBoth Mode = "both"
)

// Modes are the valid values, for flag validation.
var Modes = []Mode{ModeWebhook, ModeVAP, ModeBoth}

// admissionEngine returns the engine the webhook evaluates requests with:
// all, unless the compiled policies enforce some rules, in which case an
// engine of what is left of guardPolicies once those rules are removed
// (policies left with no rule are dropped; schemas are still validated).
// The rules are removed by compiling each policy with schemas exactly as
// `crdguard vap --crds` does, so the split matches the installed policies
// when they were compiled against the same CRDs.
func (e Mode) admissionEngine(all *policies.Engine, guardPolicies []*v1alpha1.GuardPolicy, schemas *schema.Registry) (*policies.Engine, error) {
	if e != ModeVAP {
		return all, nil
	}
	var left []*v1alpha1.GuardPolicy
	for _, gp := range guardPolicies {
		compiled, err := vap.Compile(gp, schemas, vap.Summaries)
		if err != nil {
			return nil, fmt.Errorf("compiling GuardPolicy %q to ValidatingAdmissionPolicies: %w", gp.Name, err)
		}
		if rest := compiled.WebhookPolicy(gp); rest != nil {
			left = append(left, rest)
		}
	}
	return policies.NewEngine(schemas, left...)
}
