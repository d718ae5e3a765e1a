package policies

import (
	"context"

	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
	"github.com/crdguard/crdguard/pkg/report"
)

// ruleOutcomes are the findings of the rules run on one request, by rule.
// Policies share the rules they have in common (rules.Compiler), and a
// rule reads only the request, so a shared rule runs once per request and
// every other policy that has it reuses its findings: the cost of a
// request grows with the distinct rules, not with the policies.
type ruleOutcomes map[rules.Rule]*ruleOutcome

// ruleOutcome is what one run of a rule found, rendered once, with its
// own enforcement (see rules.Finding) for the engine to weaken per policy.
type ruleOutcome struct {
	found []report.Finding
	// celCost is what the run spent of its policy's CEL budget.
	celCost int64
}

// check returns r's findings on in. A reused run is charged to the
// policy's CEL budget (in ctx) as if it ran again; when what is left of
// the budget would not cover it, the rule runs again, so it fails on the
// budget exactly as it would alone. A run that reached no verdict is not
// kept: its error may be this policy's budget or ctx, not the rule's. A
// nil o keeps nothing: a request that one policy matches runs each of its
// rules once anyway.
func (o ruleOutcomes) check(ctx context.Context, r rules.Rule, in *rules.Request) ([]report.Finding, error) {
	left := rules.CELBudgetLeft(ctx)
	if out, ok := o[r]; ok && out.celCost <= left {
		rules.SpendCELBudget(ctx, out.celCost)
		return out.found, nil
	}
	found, err := r.Check(ctx, in)
	if err != nil {
		return nil, err
	}
	rendered := make([]report.Finding, len(found))
	for i, f := range found {
		rendered[i] = report.Finding{Field: f.Field, Type: string(f.Type), Message: f.ErrorBody(), Enforcement: f.Enforcement}
	}
	if o != nil {
		o[r] = &ruleOutcome{celCost: left - rules.CELBudgetLeft(ctx), found: rendered}
	}
	return rendered, nil
}
