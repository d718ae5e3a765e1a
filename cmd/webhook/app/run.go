package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/crdguard/crdguard/internal/cluster"
	"github.com/crdguard/crdguard/internal/version"
	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Run serves the webhooks until ctx is done, then shuts down gracefully:
// the server stops accepting connections and in-flight requests finish,
// within o.ShutdownTimeout. o must be completed and valid.
func Run(ctx context.Context, o *Options) error {
	log, err := newLogger(o.Dev)
	if err != nil {
		return fmt.Errorf("setting up logging: %w", err)
	}
	// controller-runtime's packages log through its global logger.
	ctrl.SetLogger(log)
	// From SIGTERM on, ctx ends only after --shutdown-delay.
	draining := &atomic.Bool{}
	ctx = delayShutdown(ctx, o.ShutdownDelay, draining, log)

	metrics, engineMetrics := webhook.NewMetrics(), cluster.NewMetrics()
	if err := errors.Join(metrics.Register(ctrlmetrics.Registry), engineMetrics.Register(ctrlmetrics.Registry)); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	// Files are loaded before serving: a webhook that starts without its
	// policies could only answer 500. From the cluster, the holder stays
	// empty (and /readyz failing) until the informers have synced and the
	// first engine is built.
	engines := &webhook.EngineHolder{}
	// The background audit reports every rule, including those compiled
	// policies enforce on admission.
	audited := engines
	mode := cluster.Mode(o.Mode)
	var source *cluster.Source
	// With policies from the cluster, --crds are read once, for the
	// source's schemas and the background audit's.
	var fileCRDs []*apiextensionsv1.CustomResourceDefinition
	if len(o.Policies) > 0 {
		engine, stats, err := cluster.EngineFromFiles(ctx, o.CRDs, o.Policies, mode)
		if err != nil {
			return err
		}
		engines.Store(engine)
		engineMetrics.SetSources(stats.Policies, stats.Schemas)
		log.Info("Loaded policies and schemas from files", "crds", o.CRDs, "policies", o.Policies, "policyCount", stats.Policies, "schemaCount", stats.Schemas)
	} else {
		source = &cluster.Source{Engines: engines, Mode: mode, Metrics: engineMetrics, Log: log.WithName("sources"), Debounce: o.SourceDebounce}
		if mode == cluster.ModeVAP {
			audited = &webhook.EngineHolder{}
			source.AllRules = audited
		}
		if len(o.CRDs) > 0 {
			if fileCRDs, err = (policies.Files{CRDs: o.CRDs}).LoadCRDs(ctx); err != nil {
				return fmt.Errorf("loading CRDs: %w", err)
			}
			if source.Schemas, err = schema.NewRegistry(fileCRDs...); err != nil {
				return fmt.Errorf("loading CRDs: %w", err)
			}
		}
		log.Info("Watching GuardPolicies from the cluster", "crdsFromFiles", o.CRDs)
	}

	cfg, err := restConfig(o.Kubeconfig)
	if err != nil {
		// Policies and CRDs from files need no cluster, unless something
		// else does: then the error says what.
		uses := o.clusterUses()
		if engine := engines.Load(); engine != nil && engine.UsesNamespaceSelector() {
			uses = append(uses, "a GuardPolicy with a namespaceSelector (namespace labels)")
		}
		if len(uses) > 0 {
			return fmt.Errorf("%w; the cluster is needed for %s", err, strings.Join(uses, ", "))
		}
		log.Info("No cluster configured: serving the policies and CRDs from files only", "reason", err.Error())
		cfg = noCluster()
	}
	// From files or self-signed (--tls-mode), read or issued now.
	certs, err := o.servingCertificates(ctx, cfg, log)
	if err != nil {
		return err
	}
	// Called at once with the certificate New read, then on every renewal.
	certs.RegisterCallback(metrics.SetServingCertificate)
	tlsOpts := []func(*tls.Config){o.tlsConfig(certs.GetCertificate)}
	clients, err := o.newClientVerifier(ctx)
	if err != nil {
		return err
	}
	if clients != nil {
		tlsOpts = append(tlsOpts, clients.tlsConfig)
	}
	server := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: o.Host, Port: o.Port, TLSOpts: tlsOpts})
	// The CRD informer decodes into typed objects.
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	// controller-runtime's default ratios: 15s lease, 10s renew, 2s retry.
	renewDeadline, retryPeriod := o.LeaderElectionLeaseDuration*2/3, o.LeaderElectionLeaseDuration*2/15
	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Scheme: scheme,
		// CRDs are large and managedFields often their biggest part; no
		// source reads them.
		Cache: cache.Options{
			DefaultTransform: cache.TransformStripManagedFields(),
			// Informers that tell the source when a list or watch fails.
			NewInformer: newInformer(source),
		},
		Logger:                  log,
		Metrics:                 o.metricsServer(),
		HealthProbeBindAddress:  o.HealthProbeBindAddress,
		PprofBindAddress:        o.PprofBindAddress,
		WebhookServer:           server,
		GracefulShutdownTimeout: &o.ShutdownTimeout,
		// Only the background audit, the managed rules and the policy
		// status need a leader; every replica serves requests either way.
		LeaderElection:                o.leaderElection(),
		LeaderElectionID:              auditLeaseName,
		LeaderElectionNamespace:       o.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &o.LeaderElectionLeaseDuration,
		RenewDeadline:                 &renewDeadline,
		RetryPeriod:                   &retryPeriod,
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	if err := mgr.Add(certs); err != nil {
		return err
	}
	if source != nil {
		source.Cache, source.Live = mgr.GetCache(), mgr.GetAPIReader()
		if err := ctrlmetrics.Registry.Register(source.StalenessMetric()); err != nil {
			return fmt.Errorf("registering metrics: %w", err)
		}
		if err := mgr.Add(source); err != nil {
			return err
		}
	}
	if o.Audit {
		if err := o.addAuditor(mgr, cfg, audited, fileCRDs, log); err != nil {
			return err
		}
	}
	// GetWebhookServer, not server: only through it does the manager add
	// the server to what it starts.
	guard, err := o.crdGuard(cfg)
	if err != nil {
		return err
	}
	var routing *webhook.Routing
	if len(o.ValidatingConfigurations) > 0 {
		// Read live, by name: a get of the named configurations is all
		// the RBAC it needs, where a cache would list and watch them all.
		routing = &webhook.Routing{Reader: mgr.GetAPIReader(), Mapper: mgr.GetRESTMapper(), Configurations: o.ValidatingConfigurations}
		if err := ctrlmetrics.Registry.Register(&webhook.RoutingCollector{Routing: routing, Engines: engines}); err != nil {
			return fmt.Errorf("registering metrics: %w", err)
		}
	}
	webhook.Register(mgr.GetWebhookServer(), webhook.Config{
		Engines:         engines,
		Metrics:         metrics,
		NamespaceLabels: namespaceLabels(mgr.GetClient(), mgr.GetAPIReader()),
		Routing:         routing,
		BodyBudget:      webhook.NewBodyBudget(o.MaxInFlightRequestBytes),
		Draining:        draining.Load,
		CRDGuard:        guard,
		// Done when the shutdown starts, before the server's own context
		// ends: requests in flight still finish.
		Shutdown: ctx,
	})
	if o.ManageWebhookRules {
		managed := &cluster.ManagedRules{
			Engines: engines, Mapper: mgr.GetRESTMapper(), Reader: mgr.GetAPIReader(), Writer: mgr.GetClient(),
			Validating: o.WebhookConfiguration, Metrics: engineMetrics, Log: log.WithName("webhook-rules"),
		}
		if o.MutatingWebhook {
			managed.Mutating = o.WebhookConfiguration
		}
		if err := mgr.Add(managed); err != nil {
			return err
		}
		// Not ready while unguarded: a rollout waits for the rules.
		if err := mgr.AddReadyzCheck("webhook-rules", func(r *http.Request) error { return managed.Ready(r.Context()) }); err != nil {
			return err
		}
	}
	if o.PolicyStatus {
		// The configurations crdguard routes by: those named, and the one
		// whose rules it keeps.
		configurations := slices.Clone(o.ValidatingConfigurations)
		if o.ManageWebhookRules && !slices.Contains(configurations, o.WebhookConfiguration) {
			configurations = append(configurations, o.WebhookConfiguration)
		}
		if err := mgr.Add(&cluster.PolicyStatus{
			Source: source, Engines: engines, Mode: mode,
			Routing:  &webhook.Routing{Reader: mgr.GetAPIReader(), Mapper: mgr.GetRESTMapper(), Configurations: configurations},
			Policies: mgr.GetCache(), Live: mgr.GetAPIReader(), Writer: mgr.GetClient(),
			Log: log.WithName("policy-status"),
		}); err != nil {
			return err
		}
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	// Ready only when the TLS port answers and the sources have produced
	// an engine: the API server should not be sent here before both.
	if err := mgr.AddReadyzCheck("webhook", server.StartedChecker()); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("shutdown", func(*http.Request) error {
		if draining.Load() {
			return errors.New("shutting down")
		}
		return nil
	}); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("sources", func(*http.Request) error {
		if !engines.Ready() {
			return errors.New("policies and schemas not loaded")
		}
		return nil
	}); err != nil {
		return err
	}
	log.Info("Starting", "version", version.Get(), "port", o.Port, "tlsMinVersion", o.TLSMinVersion, "http2", o.EnableHTTP2)
	return mgr.Start(ctx)
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

// restConfig is the cluster's client configuration: from o.Kubeconfig when
// given, else controller-runtime's usual lookup.
func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("reading kubeconfig %s: %w", kubeconfig, err)
		}
		return cfg, nil
	}
	cfg, err := config.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("finding the cluster's configuration: %w", err)
	}
	return cfg, nil
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

// newInformer is the cache's informer constructor: client-go's, with its
// list and watch calls reported to source, when there is one.
func newInformer(source *cluster.Source) func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer {
	return func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
		if source != nil {
			lw = source.ReportingListerWatcher(lw)
		}
		return toolscache.NewSharedIndexInformer(lw, obj, resync, indexers)
	}
}

// metricsServer serves /metrics on --metrics-bind-address: plain, or with
// --metrics-secure over HTTPS (the webhook's TLS settings, a self-signed
// certificate) for callers the API server authenticates and authorizes.
func (o *Options) metricsServer() metricsserver.Options {
	opts := metricsserver.Options{BindAddress: o.MetricsBindAddress}
	if o.MetricsSecure {
		opts.SecureServing = true
		opts.FilterProvider = filters.WithAuthenticationAndAuthorization
		opts.TLSOpts = []func(*tls.Config){o.tlsConfig(nil)}
	}
	return opts
}

// clusterUses names what the options read from or write to the cluster.
func (o *Options) clusterUses() []string {
	var uses []string
	for _, u := range []struct {
		on   bool
		what string
	}{
		{len(o.Policies) == 0, "GuardPolicies watched from the cluster (no --policies)"},
		{o.Audit, "--audit"},
		{o.GuardCRDs, "--guard-crds"},
		{o.TLSMode == TLSModeSelfSigned, "--tls-mode=self-signed"},
		{len(o.ValidatingConfigurations) > 0, "--validating-configurations"},
		{o.ManageWebhookRules, "--manage-webhook-rules"},
		{o.PolicyStatus, "--policy-status"},
		{o.MetricsSecure, "--metrics-secure"},
	} {
		if u.on {
			uses = append(uses, u.what)
		}
	}
	return uses
}

// noCluster is the configuration of a webhook that runs without a
// cluster: a call that reaches it anyway fails, saying why.
func noCluster() *rest.Config {
	return &rest.Config{Host: "https://no-cluster.invalid", Transport: roundTripperFunc(func(*http.Request) (*http.Response, error) {
		return nil, errors.New("crdguard-webhook runs without a cluster: no kubeconfig was found")
	})}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
