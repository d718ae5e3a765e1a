package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/webhookrules"
)

// The webhooks whose rules ManagedRules keeps, as the chart names them.
const (
	ValidateWebhook = "validate.crdguard.dev"
	MutateWebhook   = "mutate.crdguard.dev"
)

// ManagedRules keeps the rules of crdguard's own validate.crdguard.dev and
// mutate.crdguard.dev webhooks equal to what the served engine's
// GuardPolicies need (webhookrules.Compute). It follows the engine, which
// the sources rebuild after every GuardPolicy and CRD change, and checks
// again every Resync, so a configuration reset by hand or by a deploy is
// put right.
//
// Only the leader writes, and only the rules: a JSON patch of each
// webhook's rules, guarded by a test of the webhook's name at its index
// and of the configuration's resourceVersion, so that nothing else is
// touched and a concurrent change makes the patch fail and be retried.
//
// Rules that cannot be computed (a kind no API serves yet, say a CRD not
// yet established) are never written: the last good rules stay, the error
// is logged, and the computation is retried after RetryPeriod.
type ManagedRules struct {
	Engines *webhook.EngineHolder
	// Mapper maps kinds to resources: the cluster's discovery.
	Mapper meta.RESTMapper
	// Reader reads the configurations live, by name; Writer patches them.
	Reader client.Reader
	Writer client.Writer
	// Validating and Mutating name the two configurations; "" Mutating:
	// there is no mutating webhook.
	Validating, Mutating string
	// Resync is how often the rules are checked without a change.
	// Default: 1 minute.
	Resync time.Duration
	// RetryPeriod is the wait after a failure. Default: 5 seconds.
	RetryPeriod time.Duration
	// Metrics counts failed syncs and records the last good one; nil
	// records nothing.
	Metrics *Metrics
	Log     logr.Logger

	// synced is true once this replica has seen the configurations carry
	// the rules of its engine: it wrote them, or read them.
	synced atomic.Bool
}

// NeedLeaderElection is true: one replica writes the configurations.
func (m *ManagedRules) NeedLeaderElection() bool { return true }

// Start keeps the rules until ctx is done.
func (m *ManagedRules) Start(ctx context.Context) error {
	followEngines(ctx, m.Engines, m.Resync, m.RetryPeriod, m.update, func(err error, retryIn time.Duration) {
		m.Log.Error(err, "Cannot update the webhook rules; the last written rules stay", "retryIn", retryIn)
	})
	return nil
}

// Ready tells whether the configurations carry the rules of the engine,
// for /readyz: until they do, the kinds of the policies are not guarded.
// Once true it stays true: a later policy change must not take every
// replica out of service while the leader writes it.
func (m *ManagedRules) Ready(ctx context.Context) error {
	if m.synced.Load() {
		return nil
	}
	return m.forEachStale(ctx, func(c managedConfiguration, _ client.Object, _ int, _ []admissionregistrationv1.RuleWithOperations) error {
		return fmt.Errorf("the rules of webhook %s of %s %s are not written yet", c.webhook, c.kind, c.name)
	})
}

// update syncs once and records the outcome in the metrics. Before the
// first engine there are no rules to write.
func (m *ManagedRules) update(ctx context.Context) error {
	if m.Engines.Load() == nil {
		return nil
	}
	if err := m.sync(ctx); err != nil {
		m.Metrics.rulesSyncFailed()
		return err
	}
	m.Metrics.rulesSyncSucceeded(time.Now())
	return nil
}

// sync writes the rules of the current engine where they differ.
func (m *ManagedRules) sync(ctx context.Context) error {
	return m.forEachStale(ctx, func(c managedConfiguration, obj client.Object, index int, rules []admissionregistrationv1.RuleWithOperations) error {
		patch, err := rulesPatch(obj, index, c.webhook, rules)
		if err != nil {
			return err
		}
		if err := m.Writer.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, patch)); err != nil {
			return fmt.Errorf("patching the rules of webhook %s of %s %s: %w", c.webhook, c.kind, c.name, err)
		}
		m.Log.Info("Updated the webhook rules", "configuration", c.name, "webhook", c.webhook, "rules", len(rules))
		return nil
	})
}

// forEachStale reads each configuration live and calls stale for each
// whose webhook's rules differ from the current engine's, with the
// configuration, the index of its webhook and the rules it should have.
// Ready and sync share it so that they agree on what "written" means.
// Once no call failed, the configurations carry the engine's rules:
// stale either wrote them or there was nothing to write.
func (m *ManagedRules) forEachStale(ctx context.Context, stale func(c managedConfiguration, obj client.Object, index int, rules []admissionregistrationv1.RuleWithOperations) error) error {
	want, err := m.compute()
	if err != nil {
		return err
	}
	for _, c := range m.configurations() {
		obj, index, err := c.read(ctx, m.Reader)
		if err != nil {
			return err
		}
		rules := c.pick(want)
		if apiequality.Semantic.DeepEqual(rulesAt(obj, index), rules) {
			continue
		}
		if err := stale(c, obj, index, rules); err != nil {
			return err
		}
	}
	m.synced.Store(true)
	return nil
}

func (m *ManagedRules) compute() (webhookrules.Rules, error) {
	engine := m.Engines.Load()
	if engine == nil {
		return webhookrules.Rules{}, webhook.ErrNotReady
	}
	return webhookrules.Compute(engine.Routes(), m.Mapper)
}

// managedConfiguration is one of the two configurations and its webhook.
type managedConfiguration struct {
	kind, name, webhook string
	pick                func(webhookrules.Rules) []admissionregistrationv1.RuleWithOperations
}

func (m *ManagedRules) configurations() []managedConfiguration {
	out := []managedConfiguration{{
		kind: "ValidatingWebhookConfiguration", name: m.Validating, webhook: ValidateWebhook,
		pick: func(r webhookrules.Rules) []admissionregistrationv1.RuleWithOperations { return r.Validate },
	}}
	if m.Mutating != "" {
		out = append(out, managedConfiguration{
			kind: "MutatingWebhookConfiguration", name: m.Mutating, webhook: MutateWebhook,
			pick: func(r webhookrules.Rules) []admissionregistrationv1.RuleWithOperations { return r.Mutate },
		})
	}
	return out
}

// read gets the configuration live and finds the index of its webhook.
func (c managedConfiguration) read(ctx context.Context, r client.Reader) (client.Object, int, error) {
	var obj client.Object
	var names []string
	switch c.kind {
	case "ValidatingWebhookConfiguration":
		v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := r.Get(ctx, client.ObjectKey{Name: c.name}, v); err != nil {
			return nil, 0, fmt.Errorf("reading %s %s: %w", c.kind, c.name, err)
		}
		for _, w := range v.Webhooks {
			names = append(names, w.Name)
		}
		obj = v
	default:
		mw := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := r.Get(ctx, client.ObjectKey{Name: c.name}, mw); err != nil {
			return nil, 0, fmt.Errorf("reading %s %s: %w", c.kind, c.name, err)
		}
		for _, w := range mw.Webhooks {
			names = append(names, w.Name)
		}
		obj = mw
	}
	for i, n := range names {
		if n == c.webhook {
			return obj, i, nil
		}
	}
	return nil, 0, fmt.Errorf("%s %s has no webhook %s", c.kind, c.name, c.webhook)
}

// rulesAt are the rules of the index-th webhook of obj; nil for none, as
// the API server stores an empty list.
func rulesAt(obj client.Object, index int) []admissionregistrationv1.RuleWithOperations {
	var rules []admissionregistrationv1.RuleWithOperations
	switch c := obj.(type) {
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		rules = c.Webhooks[index].Rules
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		rules = c.Webhooks[index].Rules
	}
	if len(rules) == 0 {
		return nil
	}
	return rules
}

// rulesPatch sets the rules of the index-th webhook, if it is still the
// webhook named and the object still at the version read.
func rulesPatch(obj client.Object, index int, webhook string, rules []admissionregistrationv1.RuleWithOperations) ([]byte, error) {
	if rules == nil {
		rules = []admissionregistrationv1.RuleWithOperations{}
	}
	path := fmt.Sprintf("/webhooks/%d", index)
	if obj.GetResourceVersion() == "" {
		return nil, errors.New("the configuration has no resourceVersion")
	}
	return json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": obj.GetResourceVersion()},
		{"op": "test", "path": path + "/name", "value": webhook},
		{"op": "add", "path": path + "/rules", "value": rules},
	})
}
