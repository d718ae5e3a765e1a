package app

import (
	"context"
	"fmt"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crdguard/crdguard/internal/auditor"
	"github.com/crdguard/crdguard/pkg/audit"
)

// auditLeaseName is the Lease the replicas elect the auditor with.
const auditLeaseName = "crdguard-audit"

// addAuditor adds the background auditor (--audit) to the manager. It
// evaluates with the engine the webhook serves with (every rule of it, in
// mode vap), reads GuardPolicies and CRDs from the manager's cache (the
// webhook's source runs those informers) unless --crds were read, and
// lists objects and writes reports through clients of its own that share
// one --audit-qps budget, apart from the webhook's.
func (s *server) addAuditor(context.Context) error {
	o, mgr, log := s.o, s.mgr, s.log
	if !o.Audit {
		return nil
	}
	cfg := rest.CopyConfig(s.cfg)
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
		Engines:  s.audited,
		Cache:    mgr.GetCache(),
		CRDs:     s.fileCRDs,
		Mapper:   mgr.GetRESTMapper(),
		Lister:   &audit.Lister{Client: dyn, PageSize: o.AuditPageSize},
		Client:   writer,
		Interval: o.AuditInterval,
		Metrics:  metrics,
		Log:      log.WithName("audit"),
	})
}
