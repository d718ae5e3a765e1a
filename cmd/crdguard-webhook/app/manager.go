package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

// connect finds the cluster. Policies and CRDs from files need none,
// unless something else does: then the error says what.
func (s *server) connect() error {
	cfg, err := restConfig(s.o.Kubeconfig)
	if err != nil {
		uses := s.o.clusterUses()
		if engine := s.engines.Load(); engine != nil && engine.UsesNamespaceSelector() {
			uses = append(uses, "a GuardPolicy with a namespaceSelector (namespace labels)")
		}
		if len(uses) > 0 {
			return fmt.Errorf("%w; the cluster is needed for %s", err, strings.Join(uses, ", "))
		}
		s.log.Info("No cluster configured: serving the policies and CRDs from files only", "reason", err.Error())
		cfg = noCluster()
	}
	s.cfg = cfg
	return nil
}

// certificates reads or issues the serving certificate (--tls-mode) now,
// and makes the webhook server that serves it, with client
// authentication when asked for.
func (s *server) certificates(ctx context.Context) error {
	certs, err := s.o.servingCertificates(ctx, s.cfg, s.log)
	if err != nil {
		return err
	}
	// A cipher list the certificate's key cannot use fails the start; a
	// renewed certificate is served whatever its key (TLS 1.3 still
	// works, and the old one would expire), and the error logged.
	cert, err := certs.GetCertificate(&tls.ClientHelloInfo{})
	if err != nil {
		return fmt.Errorf("loading the serving certificate: %w", err)
	}
	if err := s.o.cipherSuitesFit(cert); err != nil {
		return err
	}
	// Called at once with the certificate New read, then on every renewal.
	certs.RegisterCallback(func(cert tls.Certificate) {
		s.metrics.SetServingCertificate(cert)
		if err := s.o.cipherSuitesFit(&cert); err != nil {
			s.log.Error(err, "The renewed serving certificate cannot serve TLS 1.2")
		}
	})
	tlsOpts := []func(*tls.Config){s.o.tlsConfig(certs.GetCertificate)}
	clients, err := s.o.newClientVerifier(ctx)
	if err != nil {
		return err
	}
	if clients != nil {
		tlsOpts = append(tlsOpts, clients.tlsConfig)
	}
	s.certs = certs
	s.webhooks = ctrlwebhook.NewServer(ctrlwebhook.Options{Host: s.o.Host, Port: s.o.Port, TLSOpts: tlsOpts})
	return nil
}

// newManager creates the manager that runs everything and keeps the
// serving certificate current.
func (s *server) newManager() error {
	// The CRD informer decodes into typed objects.
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	mgr, err := ctrl.NewManager(s.cfg, s.managerOptions(scheme))
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	s.mgr = mgr
	return mgr.Add(s.certs)
}

// managerOptions are the manager's options: the cache, the servers, the
// shutdown and the leader election.
func (s *server) managerOptions(scheme *runtime.Scheme) manager.Options {
	o := s.o
	// controller-runtime's default ratios: 15s lease, 10s renew, 2s retry.
	renewDeadline, retryPeriod := o.LeaderElectionLeaseDuration*2/3, o.LeaderElectionLeaseDuration*2/15
	return manager.Options{
		Scheme: scheme,
		// CRDs are large and managedFields often their biggest part; no
		// source reads them.
		Cache: cache.Options{
			DefaultTransform: cache.TransformStripManagedFields(),
			// Informers that tell the source when a list or watch fails.
			NewInformer: newInformer(s.source),
		},
		Logger:                  s.log,
		Metrics:                 o.metricsServer(),
		HealthProbeBindAddress:  o.HealthProbeBindAddress,
		PprofBindAddress:        o.PprofBindAddress,
		WebhookServer:           s.webhooks,
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

// metricsServer serves /metrics on --metrics-bind-address: plain, or with
// --metrics-secure over HTTPS (the webhook's TLS settings, a self-signed
// certificate) for callers the API server authenticates and authorizes.
func (o *Options) metricsServer() metricsserver.Options {
	opts := metricsserver.Options{BindAddress: o.MetricsBindAddress}
	if o.MetricsSecure {
		opts.SecureServing = true
		opts.FilterProvider = metricsAuth
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
