package cluster

import (
	"cmp"
	"context"
	"maps"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// DefaultRecoveryInterval is how often Source reads GuardPolicies
// live while a watch is lost.
const DefaultRecoveryInterval = 2 * time.Second

// After an API server outage, client-go's reflectors back off for up to
// half a minute before they list and watch again, so a GuardPolicy changed
// meanwhile could wait a minute to reach the webhook, unseen. So a lost
// watch is logged, its staleness is a metric, and until the cache has
// caught up, the GuardPolicies are read
// from the API server itself every RecoveryInterval and the engine is
// rebuilt from them whenever they changed. CRDs stay as the cache has
// them: they change rarely, and reading them all again is costly.

// watchState is what Source knows of its watches.
type watchState struct {
	lost atomic.Bool
	// watching tells whether a watch call has succeeded since the loss:
	// until then the cache may equal the API server only because nothing
	// changed, and a change would not reach it.
	watching atomic.Bool
	// current is when the engine's policies were last known current, in
	// Unix nanoseconds: the watch being lost, or a live read since.
	current atomic.Int64
}

// ReportingListerWatcher is lw, telling the source of every list or watch
// call that fails: the sign of a lost watch, which client-go's reflectors
// otherwise only retry, with backoff. Give it to the cache's informers
// (cache.Options.NewInformer).
func (s *Source) ReportingListerWatcher(lw toolscache.ListerWatcher) toolscache.ListerWatcher {
	return &reportingListerWatcher{ListerWatcherWithContext: toolscache.ToListerWatcherWithContext(lw), source: s}
}

type reportingListerWatcher struct {
	toolscache.ListerWatcherWithContext
	source *Source
}

func (r *reportingListerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	obj, err := r.ListerWatcherWithContext.ListWithContext(ctx, opts)
	r.source.watchFailed(ctx, err)
	return obj, err
}

func (r *reportingListerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := r.ListerWatcherWithContext.WatchWithContext(ctx, opts)
	r.source.watchFailed(ctx, err)
	if err == nil {
		r.source.watch.watching.Store(true)
	}
	return w, err
}

// List and Watch are the ListerWatcher the informer takes.
func (r *reportingListerWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return r.ListWithContext(context.Background(), opts)
}

func (r *reportingListerWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return r.WatchWithContext(context.Background(), opts)
}

// watchFailed starts the recovery on the first failed call since the
// watches were last known up. A call ended by its context ending is the
// informer stopping, not a loss.
func (s *Source) watchFailed(ctx context.Context, err error) {
	if err == nil || ctx.Err() != nil || !s.watch.lost.CompareAndSwap(false, true) {
		return
	}
	s.watch.watching.Store(false)
	s.watch.current.Store(time.Now().UnixNano())
	s.Log.Info("Lost a watch of the API server; reading GuardPolicies live until the cache has caught up", "error", webhook.BoundError(err))
	if s.Live != nil {
		go s.recover(ctx)
	}
}

// Staleness is how long the engine's policies have not been known
// current: 0 while the watches are up.
func (s *Source) Staleness() time.Duration {
	if !s.watch.lost.Load() {
		return 0
	}
	return time.Since(time.Unix(0, s.watch.current.Load()))
}

// recover reads the GuardPolicies live until the cache holds what the API
// server does, rebuilding the engine whenever they changed.
func (s *Source) recover(ctx context.Context) {
	tick := time.NewTicker(cmp.Or(s.RecoveryInterval, DefaultRecoveryInterval))
	defer tick.Stop()
	var built map[string]string
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		live, err := policyVersions(ctx, s.Live)
		if err != nil {
			continue // the API server is not back yet
		}
		s.watch.current.Store(time.Now().UnixNano())
		if cached, err := policyVersions(ctx, s.Cache); err == nil && maps.Equal(live, cached) && s.watch.watching.Load() {
			s.watch.lost.Store(false)
			s.Log.Info("The cache has caught up with the API server")
			return
		}
		if maps.Equal(live, built) {
			continue
		}
		if stats, err := s.build(ctx, s.Live); err != nil {
			s.Log.Error(err, "Cannot rebuild the engine from live GuardPolicies; still serving the previous one")
		} else {
			built = live
			s.Log.Info("Rebuilt the engine from live GuardPolicies while the watch is down", "policyCount", stats.Policies)
		}
	}
}

// policyVersions are the resourceVersions of the GuardPolicies r lists,
// by name.
func policyVersions(ctx context.Context, r client.Reader) (map[string]string, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("GuardPolicyList"))
	if err := r.List(ctx, list); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(list.Items))
	for _, p := range list.Items {
		out[p.GetName()] = p.GetResourceVersion()
	}
	return out, nil
}

// StalenessMetric is crdguard_source_staleness_seconds: Staleness, read at
// every scrape.
func (s *Source) StalenessMetric() prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "crdguard_source_staleness_seconds",
		Help: "How long the GuardPolicies served have not been known current: 0 while the watches of the API server are up.",
	}, func() float64 { return s.Staleness().Seconds() })
}
