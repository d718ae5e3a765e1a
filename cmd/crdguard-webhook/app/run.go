package app

import (
	"context"
	"errors"
	"fmt"
	stdlog "log"
	"runtime/debug"
	"sync/atomic"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/crdguard/crdguard/internal/cluster"
	"github.com/crdguard/crdguard/internal/gcpace"
	"github.com/crdguard/crdguard/internal/version"
	"github.com/crdguard/crdguard/internal/webhook"
)

// gcHeadroom is how far the heap may grow over its live size between
// collections, at least. The server keeps its schemas and rules alive, a
// few MiB, and allocates for every review: paced by GOGC=100 alone, it
// collected every few hundred small reviews, a fifth of their CPU.
const gcHeadroom = 32 << 20

// Run serves the webhooks until ctx is done, then shuts down gracefully:
// the server stops accepting connections and in-flight requests finish,
// within o.ShutdownTimeout. o must be completed and valid.
//
// Run is the list of steps that assemble the server, in order; each step
// is a method of server and adds one part, so a new endpoint or loop is a
// new step rather than a longer Run.
func Run(ctx context.Context, o *Options) error {
	log, err := newLogger(o.Dev)
	if err != nil {
		return fmt.Errorf("setting up logging: %w", err)
	}
	// controller-runtime's packages log through its global logger.
	ctrl.SetLogger(log)
	// net/http's servers write their errors with the standard logger.
	stdlog.SetFlags(0)
	stdlog.SetOutput(newHTTPErrorLog(log.WithName("http")))
	if limit := o.GoMemoryLimit(); limit > 0 {
		debug.SetMemoryLimit(limit)
		log.Info("Go memory limit set", "bytes", limit, "memoryLimit", o.MemoryLimit)
	}
	defer gcpace.KeepHeadroom(gcHeadroom)()
	s := newServer(o, log)
	// From SIGTERM on, ctx ends only after --shutdown-delay.
	ctx = delayShutdown(ctx, o.ShutdownDelay, s.draining, log)
	if err := s.registerMetrics(); err != nil {
		return err
	}
	if err := s.loadSources(ctx); err != nil {
		return err
	}
	if err := s.connect(); err != nil {
		return err
	}
	if err := s.certificates(ctx); err != nil {
		return err
	}
	if err := s.newManager(); err != nil {
		return err
	}
	for _, add := range []func(context.Context) error{
		s.addSource,
		s.addAuditor,
		s.addWebhooks,
		s.addManagedRules,
		s.addPolicyStatus,
		s.addReadyz,
	} {
		if err := add(ctx); err != nil {
			return err
		}
	}
	log.Info("Starting", "version", version.Get(), "port", o.Port, "tlsMinVersion", o.TLSMinVersion, "http2", o.EnableHTTP2)
	return s.mgr.Start(ctx)
}

// server is what the steps of Run build and share. Each step fills in
// its part; a step reads only what the steps before it filled in.
type server struct {
	o   *Options
	log logr.Logger
	// draining is set when the shutdown starts (delayShutdown).
	draining *atomic.Bool

	metrics       *webhook.Metrics
	engineMetrics *cluster.Metrics

	// engines is what requests are evaluated with; audited what the
	// background audit evaluates: the same holder, but in mode vap, where
	// the audit still reports the rules compiled policies enforce.
	engines, audited *webhook.EngineHolder
	// source watches the cluster's GuardPolicies; nil with --policies.
	source *cluster.Source
	// fileCRDs are --crds, read once, when policies come from the
	// cluster: the source's schemas and the background audit's.
	fileCRDs []*apiextensionsv1.CustomResourceDefinition

	cfg      *rest.Config
	certs    servingCertificates
	webhooks ctrlwebhook.Server
	mgr      manager.Manager
}

// newServer starts the list: an empty holder, which requests find empty
// (a 500, /readyz failing) until a source stores the first engine.
func newServer(o *Options, log logr.Logger) *server {
	engines := &webhook.EngineHolder{}
	return &server{
		o: o, log: log, draining: &atomic.Bool{},
		metrics: webhook.NewMetrics(), engineMetrics: cluster.NewMetrics(),
		engines: engines, audited: engines,
	}
}

// registerMetrics exposes the handlers' and the engine's metrics on the
// manager's /metrics.
func (s *server) registerMetrics() error {
	if err := errors.Join(s.metrics.Register(ctrlmetrics.Registry), s.engineMetrics.Register(ctrlmetrics.Registry)); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	return nil
}
