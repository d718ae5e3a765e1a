package app

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crdguard/crdguard/internal/cluster"
	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/schema"
)

// loadSources sets up where the engine comes from. Files are loaded now,
// before serving: a webhook that starts without its policies could only
// answer 500. From the cluster, the holder stays empty (and /readyz
// failing) until the informers have synced and the first engine is built
// (addSource).
func (s *server) loadSources(ctx context.Context) error {
	if len(s.o.Policies) > 0 {
		return s.loadFiles(ctx)
	}
	return s.watchCluster(ctx)
}

// loadFiles builds the engine from --crds and --policies, once.
func (s *server) loadFiles(ctx context.Context) error {
	engine, stats, err := cluster.EngineFromFiles(ctx, s.o.CRDs, s.o.Policies, cluster.Mode(s.o.Mode))
	if err != nil {
		return err
	}
	s.engines.Store(engine)
	s.engineMetrics.SetSources(stats.Policies, stats.Schemas)
	s.log.Info("Loaded policies and schemas from files", "crds", s.o.CRDs, "policies", s.o.Policies, "policyCount", stats.Policies, "schemaCount", stats.Schemas)
	return nil
}

// watchCluster prepares the source of GuardPolicies (and, without --crds,
// CRDs) from the cluster; addSource starts it with the manager's cache.
func (s *server) watchCluster(ctx context.Context) error {
	mode := cluster.Mode(s.o.Mode)
	s.source = &cluster.Source{Engines: s.engines, Mode: mode, Metrics: s.engineMetrics, Log: s.log.WithName("sources"), Debounce: s.o.SourceDebounce}
	// The background audit reports every rule, including those compiled
	// policies enforce on admission.
	if mode == cluster.ModeVAP {
		s.audited = &webhook.EngineHolder{}
		s.source.AllRules = s.audited
	}
	if len(s.o.CRDs) > 0 {
		var err error
		if s.fileCRDs, err = (policies.Files{CRDs: s.o.CRDs}).LoadCRDs(ctx); err != nil {
			return fmt.Errorf("loading CRDs: %w", err)
		}
		if s.source.Schemas, err = schema.NewRegistry(s.fileCRDs...); err != nil {
			return fmt.Errorf("loading CRDs: %w", err)
		}
	}
	s.log.Info("Watching GuardPolicies from the cluster", "crdsFromFiles", s.o.CRDs)
	return nil
}

// addSource starts the cluster source with the manager, reading through
// its cache; without one (--policies) there is nothing to start.
func (s *server) addSource(context.Context) error {
	if s.source == nil {
		return nil
	}
	s.source.Cache, s.source.Live = s.mgr.GetCache(), s.mgr.GetAPIReader()
	if err := ctrlmetrics.Registry.Register(s.source.StalenessMetric()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	return s.mgr.Add(s.source)
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
