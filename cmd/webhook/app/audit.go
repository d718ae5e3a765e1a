package app

import (
	"fmt"

	"github.com/go-logr/logr"
	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crdguard/crdguard/internal/auditor"
	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/audit"
)

// auditLeaseName is the Lease the replicas elect the auditor with.
const auditLeaseName = "crdguard-audit"

// addAuditor adds the background auditor (--audit) to mgr. It evaluates
// with the engine the webhook serves with, reads GuardPolicies and CRDs
// from the manager's cache (the webhook's source runs those informers)
// unless crds, read from --crds, are given, and lists objects and writes
// reports through clients of its own that share one --audit-qps budget,
// apart from the webhook's.
func (o *Options) addAuditor(mgr manager.Manager, cfg *rest.Config, engines *webhook.EngineHolder, crds []*apiextensionsv1.CustomResourceDefinition, log logr.Logger) error {
	cfg = rest.CopyConfig(cfg)
	burst := max(1, int(o.AuditQPS))
	cfg.QPS, cfg.Burst = o.AuditQPS, burst
	cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(o.AuditQPS, burst)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := openreportsv1alpha1.Install(scheme); err != nil {
		return err
	}
	writer, err := client.New(cfg, client.Options{Scheme: scheme, Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return fmt.Errorf("creating the audit's client: %w", err)
	}
	metrics := auditor.NewMetrics()
	if err := metrics.Register(ctrlmetrics.Registry); err != nil {
		return fmt.Errorf("registering audit metrics: %w", err)
	}
	log.Info("Background audit enabled", "interval", o.AuditInterval.String(), "qps", o.AuditQPS, "pageSize", o.AuditPageSize)
	return mgr.Add(&auditor.Auditor{
		Engines:  engines,
		Cache:    mgr.GetCache(),
		CRDs:     crds,
		Mapper:   mgr.GetRESTMapper(),
		Lister:   &audit.Lister{Client: dyn, PageSize: o.AuditPageSize},
		Client:   writer,
		Interval: o.AuditInterval,
		Metrics:  metrics,
		Log:      log.WithName("audit"),
	})
}
