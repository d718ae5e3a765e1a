package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/vap"
	"github.com/crdguard/crdguard/pkg/schema"
)

// enforcementChecker works out the Enforced condition of the policies of
// one build, against the webhook configurations read once.
//
// A rule is enforced when it reaches crdguard on every kind and operation
// the policy matches: through the configurations' rules to /validate, when
// the webhook evaluates it (every rule, but for those --enforcement=vap
// leaves to compiled policies), or through the ValidatingAdmissionPolicy
// and binding `crdguard vap` compiles it into, installed and matching
// those kinds. Rules the compiler leaves to the webhook need the webhook.
type enforcementChecker struct {
	status   *PolicyStatus
	loaded   *LoadedPolicies
	rules    []admissionregistrationv1.RuleWithOperations
	rulesErr error
}

func (c *enforcementChecker) condition(ctx context.Context, state LoadedPolicy) metav1.Condition {
	cond := metav1.Condition{Type: v1alpha1.ConditionEnforced, ObservedGeneration: state.Generation}
	set := func(status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		cond.Status, cond.Reason, cond.Message = status, reason, limitMessage(msg, "")
		return cond
	}
	if state.Policy == nil {
		return set(metav1.ConditionFalse, ReasonNeverValid, "no generation of the policy was ever valid, so crdguard enforces none of it")
	}
	gp := state.Policy
	configurations := "ValidatingWebhookConfiguration " + joinNames(c.status.Routing.Configurations)
	webhookProblem, webhookKnown := "", c.rulesErr == nil
	if webhookKnown {
		unrouted, err := c.status.Routing.UnroutedResources(c.rules, gp.Spec.Match)
		if err != nil {
			webhookProblem, webhookKnown = err.Error(), false
		} else if len(unrouted) > 0 {
			webhookProblem = fmt.Sprintf("%s sends crdguard no requests for %s", configurations, strings.Join(unrouted, ", "))
		}
	} else {
		webhookProblem = c.rulesErr.Error()
	}
	webhookOK := webhookKnown && webhookProblem == ""
	if webhookOK && c.status.Mode != ModeVAP {
		return set(metav1.ConditionTrue, ReasonRouted, configurations+" sends crdguard every kind and operation the policy matches")
	}

	compiled, err := c.status.compiled.compile(gp, state, c.loaded.Schemas)
	if err != nil {
		return set(metav1.ConditionUnknown, ReasonCannotTell, fmt.Sprintf("compiling the policy to ValidatingAdmissionPolicies: %v", err))
	}
	var viaWebhook, viaVAP []string
	for _, r := range compiled.Rules {
		if r.Webhook != "" {
			viaWebhook = append(viaWebhook, r.Name)
		} else {
			viaVAP = append(viaVAP, r.Name)
		}
	}
	vapProblem, vapKnown := "", true
	if len(viaVAP) > 0 {
		vapProblem, err = c.vapProblem(ctx, compiled, gp.Spec.Match)
		if err != nil {
			vapProblem, vapKnown = err.Error(), false
		}
	}
	vapOK := len(viaVAP) > 0 && vapKnown && vapProblem == ""
	var problems []string
	reason, unknown := "", false
	fail := func(r, msg string, known bool) {
		problems = append(problems, msg)
		if !known {
			unknown = true
		} else if reason == "" {
			reason = r
		}
	}
	compiledOK := vapOK || c.status.Mode != ModeVAP && webhookOK
	vapMode := c.status.Mode == ModeVAP
	// The webhook must route the policy's kinds for the rules it alone
	// evaluates, and, but in mode vap, for compiled rules that no
	// installed compiled policy enforces.
	if !webhookOK && (len(viaWebhook) > 0 || !vapMode && !compiledOK) {
		msg := webhookProblem
		if vapMode {
			msg = fmt.Sprintf("%s %s in crdguard's webhook, and %s", ruleNames(viaWebhook), verb(viaWebhook, "runs", "run"), webhookProblem)
		}
		fail(ReasonNotRouted, msg, webhookKnown)
	}
	if len(viaVAP) > 0 && !compiledOK {
		msg := fmt.Sprintf("no compiled ValidatingAdmissionPolicy stands in for %s: %s", ruleNames(viaVAP), vapProblem)
		if vapMode {
			msg = fmt.Sprintf("%s %s left to compiled ValidatingAdmissionPolicies (--enforcement=vap), and %s", ruleNames(viaVAP), verb(viaVAP, "is", "are"), vapProblem)
		}
		// But in mode vap, the webhook could stand in: not knowing
		// whether it does leaves the answer unknown.
		fail(ReasonVAPMissing, msg, vapKnown && (vapMode || webhookKnown))
	}
	switch {
	case reason != "":
		return set(metav1.ConditionFalse, reason, strings.Join(problems, "; "))
	case unknown:
		return set(metav1.ConditionUnknown, ReasonCannotTell, strings.Join(problems, "; "))
	}
	var ways []string
	if len(viaWebhook) > 0 || c.status.Mode != ModeVAP && webhookOK {
		ways = append(ways, configurations+" sends crdguard every kind and operation the policy matches")
	}
	if vapOK {
		names := make([]string, len(compiled.Policies))
		for i, p := range compiled.Policies {
			names[i] = p.Name
		}
		ways = append(ways, fmt.Sprintf("ValidatingAdmissionPolicies %s and their bindings match them for %s", joinNames(names), ruleNames(viaVAP)))
	}
	reason = ReasonCompiledVAP
	if len(viaWebhook) > 0 || !vapOK {
		reason = ReasonRouted
	}
	return set(metav1.ConditionTrue, reason, strings.Join(ways, "; "))
}

// vapProblem says what keeps the installed compiled policies from
// enforcing compiled on every kind match selects: a policy or binding not
// installed, a binding of another policy or action, a kind not matched.
// An error is a read that failed.
func (c *enforcementChecker) vapProblem(ctx context.Context, compiled *vap.Compiled, match v1alpha1.Match) (string, error) {
	var problems []string
	for i, want := range compiled.Policies {
		installed := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		err := c.status.Live.Get(ctx, client.ObjectKey{Name: want.Name}, installed)
		if apierrors.IsNotFound(err) {
			problems = append(problems, fmt.Sprintf("ValidatingAdmissionPolicy %s is not installed", want.Name))
			continue
		}
		if err != nil {
			return "", fmt.Errorf("reading ValidatingAdmissionPolicy %s: %w", want.Name, err)
		}
		wantBinding := compiled.Bindings[i]
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		err = c.status.Live.Get(ctx, client.ObjectKey{Name: wantBinding.Name}, binding)
		if apierrors.IsNotFound(err) {
			problems = append(problems, fmt.Sprintf("ValidatingAdmissionPolicyBinding %s is not installed", wantBinding.Name))
			continue
		}
		if err != nil {
			return "", fmt.Errorf("reading ValidatingAdmissionPolicyBinding %s: %w", wantBinding.Name, err)
		}
		if binding.Spec.PolicyName != want.Name {
			problems = append(problems, fmt.Sprintf("ValidatingAdmissionPolicyBinding %s binds %q, not %s", binding.Name, binding.Spec.PolicyName, want.Name))
			continue
		}
		for _, action := range wantBinding.Spec.ValidationActions {
			if !slices.Contains(binding.Spec.ValidationActions, action) {
				problems = append(problems, fmt.Sprintf("ValidatingAdmissionPolicyBinding %s has no validationAction %s", binding.Name, action))
			}
		}
		missing, err := c.unmatched(installed.Spec.MatchConstraints, match)
		if err != nil {
			return "", err
		}
		if binding.Spec.MatchResources != nil {
			narrowed, err := c.unmatched(binding.Spec.MatchResources, match)
			if err != nil {
				return "", err
			}
			missing = append(missing, narrowed...)
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("ValidatingAdmissionPolicy %s and its binding do not match %s", want.Name, strings.Join(missing, ", ")))
		}
	}
	return strings.Join(problems, "; "), nil
}

// unmatched are the kinds of match that m's resource rules do not match.
// Rules that name objects or exclude resources narrow what is matched in
// ways not worked out here, so they match nothing: fail closed.
func (c *enforcementChecker) unmatched(m *admissionregistrationv1.MatchResources, match v1alpha1.Match) ([]string, error) {
	var rules []admissionregistrationv1.RuleWithOperations
	if m != nil && len(m.ExcludeResourceRules) == 0 {
		for _, r := range m.ResourceRules {
			if len(r.ResourceNames) == 0 {
				rules = append(rules, r.RuleWithOperations)
			}
		}
	}
	return c.status.Routing.UnroutedResources(rules, match)
}

// compiledCache keeps each policy's compiled form while its version and
// the schemas it was compiled against stay the same: compiling costs
// milliseconds per rule, and a sync compiles every policy in mode vap.
type compiledCache struct {
	mu      sync.Mutex
	entries map[string]compiledEntry
}

type compiledEntry struct {
	uid        types.UID
	generation int64
	schemas    *schema.Registry
	compiled   *vap.Compiled
}

func (c *compiledCache) compile(gp *v1alpha1.GuardPolicy, state LoadedPolicy, schemas *schema.Registry) (*vap.Compiled, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[gp.Name]; ok && e.uid == state.UID && e.generation == state.PolicyGeneration && e.schemas == schemas {
		return e.compiled, nil
	}
	compiled, err := vap.Compile(gp, schemas, vap.Summaries)
	if err != nil {
		return nil, err
	}
	if c.entries == nil {
		c.entries = map[string]compiledEntry{}
	}
	c.entries[gp.Name] = compiledEntry{uid: state.UID, generation: state.PolicyGeneration, schemas: schemas, compiled: compiled}
	return compiled, nil
}

// keep forgets the policies loaded no longer has.
func (c *compiledCache) keep(loaded *LoadedPolicies) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name := range c.entries {
		if _, ok := loaded.Policies[name]; !ok {
			delete(c.entries, name)
		}
	}
}

// ruleNames names rules for a message: "rule a", "rules a and b".
func ruleNames(names []string) string {
	if len(names) == 1 {
		return "rule " + names[0]
	}
	return "rules " + joinNames(names)
}

// verb is one or many's form of a verb, as names needs.
func verb(names []string, one, many string) string {
	if len(names) == 1 {
		return one
	}
	return many
}
