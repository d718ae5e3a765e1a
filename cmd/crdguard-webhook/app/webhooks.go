package app

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// addWebhooks registers the admission endpoints with the manager's
// webhook server: /validate, /mutate and /validate-policy always,
// /validate-crd with --guard-crds, and the routing checks with
// --validating-configurations.
func (s *server) addWebhooks(ctx context.Context) error {
	guard, err := s.o.crdGuard(s.cfg)
	if err != nil {
		return err
	}
	var routing *webhook.Routing
	if len(s.o.ValidatingConfigurations) > 0 {
		// Read live, by name: a get of the named configurations is all
		// the RBAC it needs, where a cache would list and watch them all.
		routing = &webhook.Routing{Reader: s.mgr.GetAPIReader(), Mapper: s.mgr.GetRESTMapper(), Configurations: s.o.ValidatingConfigurations}
		if err := ctrlmetrics.Registry.Register(&webhook.RoutingCollector{Routing: routing, Engines: s.engines}); err != nil {
			return fmt.Errorf("registering metrics: %w", err)
		}
	}
	key, err := s.o.approvalKey()
	if err != nil {
		return err
	}
	if key == nil {
		s.log.Info("No --approval-key-file: approval records are unsigned, and a stored approval approves no DELETE")
	}
	// GetWebhookServer, not s.webhooks: only through it does the manager
	// add the server to what it starts.
	webhook.Register(s.mgr.GetWebhookServer(), webhook.Config{
		Engines:         s.engines,
		Metrics:         s.metrics,
		NamespaceLabels: namespaceLabels(s.mgr.GetClient(), s.mgr.GetAPIReader()),
		Routing:         routing,
		BodyBudget:      webhook.NewBodyBudget(s.o.MaxInFlightRequestBytes),
		Draining:        s.draining.Load,
		CRDGuard:        guard,
		ApprovalKey:     key,
		// Done when the shutdown starts, before the server's own context
		// ends: requests in flight still finish.
		Shutdown:        ctx,
		VerifyFastPaths: s.o.VerifyFastPaths,
	})
	return nil
}

// namespaceLabels reads namespace labels from the manager's cache, metadata
// only: a namespaceSelector needs nothing else, and a request must not pay
// for a round trip to the API server. The informer starts on the first
// lookup, so only policies with a namespaceSelector need the RBAC to get,
// list and watch namespaces.
//
// A namespace the cache does not know is read from live: the API server
// admits requests only in namespaces that exist, so a miss means the cache
// has not seen one created moments ago (kubectl apply of a namespace and
// its objects together), and failing the request would deny it.
func namespaceLabels(cached, live client.Reader) webhook.NamespaceLabelsFunc {
	return func(ctx context.Context, name string) (map[string]string, error) {
		ns := &metav1.PartialObjectMetadata{}
		ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
		err := cached.Get(ctx, client.ObjectKey{Name: name}, ns)
		if apierrors.IsNotFound(err) && live != nil {
			err = live.Get(ctx, client.ObjectKey{Name: name}, ns)
		}
		if err != nil {
			return nil, err
		}
		return ns.GetLabels(), nil
	}
}

// crdGuard configures /validate-crd, nil when --guard-crds is off. Stored
// objects are read live through the dynamic client, by the resource the
// CRD names: no cache (a CRD upgrade is rare, its objects many) and no
// discovery (the kinds are known from the CRD itself).
func (o *Options) crdGuard(cfg *rest.Config) (*webhook.CRDGuard, error) {
	if !o.GuardCRDs {
		return nil, nil
	}
	guard := &webhook.CRDGuard{
		Names:       o.GuardCRDNames,
		Approvers:   v1alpha1.Approvers{Users: o.CRDApproverUsers, Groups: o.CRDApproverGroups, ServiceAccounts: o.CRDApproverServiceAccounts},
		PageSize:    o.CRDReplayPageSize,
		MaxObjects:  o.CRDReplayMaxObjects,
		Timeout:     o.CRDReplayTimeout,
		Concurrency: o.CRDReplayConcurrency,
	}
	if o.GuardCRDsSelector != "" {
		sel, err := labels.Parse(o.GuardCRDsSelector)
		if err != nil {
			return nil, fmt.Errorf("--guard-crds-selector: %w", err)
		}
		guard.Selector = sel
	}
	// A rate limit of its own: client-go's default one, shared, made
	// concurrent replays wait past their deadline.
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = o.CRDReplayQPS, o.CRDReplayBurst
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	guard.Client = client
	return guard, nil
}
