package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/crdguard/crdguard/internal/webhook"
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

	// Load before serving: a webhook that starts without its policies
	// could only answer 500 (or, worse, allow).
	engine, stats, err := webhook.EngineFromFiles(ctx, o.CRDs, o.Policies)
	if err != nil {
		return err
	}
	engines := webhook.NewEngineHolder(engine)
	metrics := webhook.NewMetrics()
	if err := metrics.Register(ctrlmetrics.Registry); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	metrics.SetSources(stats.Policies, stats.Schemas)
	log.Info("Loaded policies and schemas from files", "crds", o.CRDs, "policies", o.Policies, "policyCount", stats.Policies, "schemaCount", stats.Schemas)

	cfg, err := restConfig(o.Kubeconfig)
	if err != nil {
		return err
	}
	// An explicit certwatcher rather than the server's own: it reads the
	// files now, so a missing certificate fails the start instead of the
	// first handshake, and it reloads them when cert-manager renews the
	// Secret.
	certs, err := certwatcher.New(filepath.Join(o.CertDir, o.CertName), filepath.Join(o.CertDir, o.KeyName))
	if err != nil {
		return fmt.Errorf("loading the serving certificate: %w", err)
	}
	// Called at once with the certificate New read, then on every renewal.
	certs.RegisterCallback(metrics.SetServingCertificate)
	server := ctrlwebhook.NewServer(ctrlwebhook.Options{
		Host:    o.Host,
		Port:    o.Port,
		TLSOpts: []func(*tls.Config){o.tlsConfig(certs.GetCertificate)},
	})
	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Logger:                  log,
		Metrics:                 metricsserver.Options{BindAddress: o.MetricsBindAddress},
		HealthProbeBindAddress:  o.HealthProbeBindAddress,
		WebhookServer:           server,
		GracefulShutdownTimeout: &o.ShutdownTimeout,
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	if err := mgr.Add(certs); err != nil {
		return err
	}
	// GetWebhookServer, not server: only through it does the manager add
	// the server to what it starts.
	webhook.Register(mgr.GetWebhookServer(), webhook.Config{
		Engines:         engines,
		Metrics:         metrics,
		NamespaceLabels: namespaceLabels(mgr.GetClient()),
	})
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	// Ready only when the TLS port answers and the sources have produced
	// an engine: the API server should not be sent here before both.
	if err := mgr.AddReadyzCheck("webhook", server.StartedChecker()); err != nil {
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
	log.Info("Starting", "port", o.Port, "tlsMinVersion", o.TLSMinVersion, "http2", o.EnableHTTP2)
	return mgr.Start(ctx)
}

// namespaceLabels reads namespace labels from the manager's cache, metadata
// only: a namespaceSelector needs nothing else, and a request must not pay
// for a round trip to the API server. The informer starts on the first
// lookup, so only policies with a namespaceSelector need the RBAC to list
// and watch namespaces.
func namespaceLabels(c client.Reader) webhook.NamespaceLabelsFunc {
	return func(ctx context.Context, name string) (map[string]string, error) {
		ns := &metav1.PartialObjectMetadata{}
		ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
		if err := c.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
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
