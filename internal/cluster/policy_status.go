package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/flowcontrol"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// The reasons of the Ready and Enforced conditions (docs/guardpolicy.md).
const (
	// Ready: the generation compiled, or not.
	ReasonCompiled = "Compiled"
	ReasonInvalid  = "Invalid"
	// Enforced: what reaches crdguard, or what does not.
	ReasonRouted      = "Routed"
	ReasonCompiledVAP = "CompiledPolicies"
	ReasonNotRouted   = "NotRouted"
	ReasonVAPMissing  = "CompiledPoliciesMissing"
	ReasonNeverValid  = "NeverValid"
	ReasonCannotTell  = "CannotTell"
)

// maxConditionMessage is metav1.Condition's limit on a message.
const maxConditionMessage = 32768

// PolicyStatus writes the Ready and Enforced conditions of every
// GuardPolicy (see the v1alpha1 condition types) from what the source's
// last build made of it and from what reaches crdguard. It follows the
// engine, which the source rebuilds after every GuardPolicy and CRD
// change, and checks again every Resync, so conditions reset by hand or
// made stale by a change of a webhook configuration are put right.
//
// Only the leader writes, and only status.conditions: a merge patch of the
// status subresource at the resourceVersion read, so status.audit (the
// background audit's) is kept and a concurrent write makes the patch fail
// and be retried. A policy whose conditions would not change is not
// written, and writes wait for Limiter, so a thousand policies changing at
// once cost the API server a bounded rate of writes.
//
// RBAC: patch on guardpolicies/status; get on the configurations named in
// Routing and, when the webhook does not route every kind a policy
// matches or Mode is ModeVAP, on validatingadmissionpolicies and
// validatingadmissionpolicybindings.
type PolicyStatus struct {
	// Source is the cluster source whose builds the conditions report.
	Source *Source
	// Engines is the admission engine's holder: each Store is a build.
	Engines *webhook.EngineHolder
	// Mode says which rules the webhook evaluates; "" is ModeWebhook.
	Mode Mode
	// Routing reads the configurations that send requests to /validate.
	Routing *webhook.Routing
	// Policies lists the stored GuardPolicies (the source's cache); Live
	// reads the compiled policies by name; Writer patches the status.
	Policies client.Reader
	Live     client.Reader
	Writer   client.Client
	// Limiter bounds the rate of status writes. Default: 5 a second,
	// bursts of 10.
	Limiter flowcontrol.RateLimiter
	// Resync is how often the conditions are checked without a change.
	// Default: 1 minute.
	Resync time.Duration
	// RetryPeriod is the wait after a failure. Default: 5 seconds.
	RetryPeriod time.Duration
	Log         logr.Logger

	compiled compiledCache
}

// NeedLeaderElection is true: one replica writes the status.
func (s *PolicyStatus) NeedLeaderElection() bool { return true }

// Start keeps the conditions until ctx is done.
func (s *PolicyStatus) Start(ctx context.Context) error {
	if s.Limiter == nil {
		s.Limiter = flowcontrol.NewTokenBucketRateLimiter(5, 10)
	}
	followEngines(ctx, s.Engines, s.Resync, s.RetryPeriod, s.sync, func(err error, retryIn time.Duration) {
		s.Log.Error(err, "Cannot write the status of GuardPolicies", "retryIn", retryIn)
	})
	return nil
}

// sync writes the conditions of every stored GuardPolicy that the last
// build read, where they differ. A policy created or changed since is
// left to the next build's sync.
func (s *PolicyStatus) sync(ctx context.Context) error {
	loaded := s.Source.Loaded()
	if loaded == nil {
		return nil
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("GuardPolicyList"))
	if err := s.Policies.List(ctx, list); err != nil {
		return fmt.Errorf("listing GuardPolicies: %w", err)
	}
	checker := &enforcementChecker{status: s, loaded: loaded}
	checker.rules, checker.rulesErr = s.Routing.ValidateRules(ctx)
	var errs []error
	for i := range list.Items {
		obj := &list.Items[i]
		state, ok := loaded.Policies[obj.GetName()]
		if !ok || state.UID != obj.GetUID() {
			continue
		}
		want := []metav1.Condition{readyCondition(state), checker.condition(ctx, state)}
		if err := s.write(ctx, obj, want); err != nil {
			errs = append(errs, fmt.Errorf("GuardPolicy %s: %w", obj.GetName(), err))
		}
	}
	s.compiled.keep(loaded)
	return errors.Join(errs...)
}

// write sets want in obj's conditions and patches them, unless nothing
// changes.
func (s *PolicyStatus) write(ctx context.Context, obj *unstructured.Unstructured, want []metav1.Condition) error {
	current, err := conditionsOf(obj)
	if err != nil {
		return err
	}
	next := make([]metav1.Condition, len(current))
	for i := range current {
		current[i].DeepCopyInto(&next[i])
	}
	for _, c := range want {
		meta.SetStatusCondition(&next, c)
	}
	if apiequality.Semantic.DeepEqual(current, next) {
		return nil
	}
	if err := s.Limiter.Wait(ctx); err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": obj.GetResourceVersion()},
		"status":   map[string]any{"conditions": next},
	})
	if err != nil {
		return err
	}
	target := guardPolicyObject()
	target.SetName(obj.GetName())
	err = s.Writer.Status().Patch(ctx, target, client.RawPatch(types.MergePatchType, patch))
	if apierrors.IsNotFound(err) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return fmt.Errorf("writing its conditions: %w", err)
	}
	s.Log.V(1).Info("Wrote the conditions of a GuardPolicy", "policy", obj.GetName(), "generation", obj.GetGeneration())
	return nil
}

// conditionsOf decodes the stored status.conditions.
func conditionsOf(obj *unstructured.Unstructured) ([]metav1.Condition, error) {
	raw, ok, err := unstructured.NestedSlice(obj.Object, "status", "conditions")
	if err != nil || !ok {
		return nil, err
	}
	out := make([]metav1.Condition, len(raw))
	for i, item := range raw {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("status.conditions[%d] is not an object", i)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &out[i]); err != nil {
			return nil, fmt.Errorf("status.conditions[%d]: %w", i, err)
		}
	}
	return out, nil
}

// readyCondition says whether the stored generation compiled and, when it
// did not, why and what the engine enforces instead.
func readyCondition(state LoadedPolicy) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.ConditionReady, ObservedGeneration: state.Generation}
	if len(state.Errs) == 0 {
		c.Status, c.Reason = metav1.ConditionTrue, ReasonCompiled
		c.Message = fmt.Sprintf("crdguard compiled generation %d and enforces it", state.Generation)
		return c
	}
	causes := make([]string, len(state.Errs))
	for i, e := range state.Errs {
		causes[i] = e.Error()
	}
	c.Status, c.Reason = metav1.ConditionFalse, ReasonInvalid
	kept := "no generation of the policy was ever valid, so crdguard enforces none of it"
	if state.Policy != nil {
		kept = fmt.Sprintf("the last good generation, %d, is still enforced", state.PolicyGeneration)
	}
	c.Message = limitMessage(fmt.Sprintf("generation %d is invalid: %s", state.Generation, strings.Join(causes, "; ")), "; "+kept)
	return c
}

// limitMessage is msg+tail, msg cut so that the whole fits a condition.
func limitMessage(msg, tail string) string {
	if len(msg)+len(tail) <= maxConditionMessage {
		return msg + tail
	}
	const cut = " ..."
	keep := maxConditionMessage - len(tail) - len(cut)
	for keep > 0 && !utf8RuneStart(msg[keep]) {
		keep--
	}
	return msg[:keep] + cut + tail
}

// utf8RuneStart tells whether b starts a UTF-8 sequence: a cut there
// leaves valid UTF-8.
func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// joinNames lists names for a message: "a", "a and b", "a, b and c".
func joinNames(names []string) string {
	names = slices.Clone(names)
	slices.Sort(names)
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
