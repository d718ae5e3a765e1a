package app

import (
	"context"
	"net/http"
	"slices"

	"github.com/crdguard/crdguard/internal/cluster"
	"github.com/crdguard/crdguard/internal/webhook"
)

// addManagedRules keeps the rules of crdguard's own webhooks equal to what
// its GuardPolicies need (--manage-webhook-rules), and holds /readyz until
// they are written: a rollout waits for the rules, rather than serving
// while the policies' kinds are unguarded.
func (s *server) addManagedRules(context.Context) error {
	if !s.o.ManageWebhookRules {
		return nil
	}
	managed := &cluster.ManagedRules{
		Engines: s.engines, Mapper: s.mgr.GetRESTMapper(), Reader: s.mgr.GetAPIReader(), Writer: s.mgr.GetClient(),
		Validating: s.o.WebhookConfiguration, Metrics: s.engineMetrics, Log: s.log.WithName("webhook-rules"),
	}
	if s.o.MutatingWebhook {
		managed.Mutating = s.o.WebhookConfiguration
	}
	if err := s.mgr.Add(managed); err != nil {
		return err
	}
	return s.mgr.AddReadyzCheck("webhook-rules", func(r *http.Request) error { return managed.Ready(r.Context()) })
}

// addPolicyStatus writes the Ready and Enforced conditions of every
// GuardPolicy (--policy-status).
func (s *server) addPolicyStatus(context.Context) error {
	if !s.o.PolicyStatus {
		return nil
	}
	return s.mgr.Add(&cluster.PolicyStatus{
		Source: s.source, Engines: s.engines, Mode: cluster.Mode(s.o.Mode),
		Routing:  &webhook.Routing{Reader: s.mgr.GetAPIReader(), Mapper: s.mgr.GetRESTMapper(), Configurations: s.o.routedConfigurations()},
		Policies: s.mgr.GetCache(), Live: s.mgr.GetAPIReader(), Writer: s.mgr.GetClient(),
		Log: s.log.WithName("policy-status"),
	})
}

// routedConfigurations are the configurations crdguard routes by: those
// named (--validating-configurations), and the one whose rules it keeps
// (--manage-webhook-rules), once.
func (o *Options) routedConfigurations() []string {
	configurations := slices.Clone(o.ValidatingConfigurations)
	if o.ManageWebhookRules && !slices.Contains(configurations, o.WebhookConfiguration) {
		configurations = append(configurations, o.WebhookConfiguration)
	}
	return configurations
}
