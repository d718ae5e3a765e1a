package auditor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/audit"
	"github.com/crdguard/crdguard/pkg/policies"
)

// Defaults of the Auditor's fields.
const (
	// DefaultInterval is the time between audits when nothing changes.
	DefaultInterval = time.Hour
	// DefaultMaxResultsPerReport bounds one report: at about 1 KiB a
	// result, well under etcd's 1.5 MiB object limit.
	DefaultMaxResultsPerReport = 1000
)

// engineCheck is how often the auditor looks for a rebuilt engine: an
// atomic load, so cheap; the rebuild itself is already debounced.
const engineCheck = time.Second

// retryAfter is the wait before a failed audit is tried again, unless
// Interval is shorter.
const retryAfter = time.Minute

// Engines is where the auditor finds the engine to evaluate with: the
// webhook's EngineHolder, so reports and admission decisions agree.
type Engines interface {
	Load() *policies.Engine
}

// Auditor audits the cluster's stored objects in the background and writes
// the findings as OpenReports. It is a manager Runnable that runs on the
// elected leader only, so however many webhook replicas run, one writes
// the reports.
//
// It audits every Interval, and whenever Engines holds a new engine: the
// webhook rebuilds it after a GuardPolicy or CRD change (debounced), so a
// new or changed policy is reported on without waiting for the interval.
// A run streams objects page by page at the Lister's client rate; memory
// grows with findings (at most MaxResultsPerReport per namespace), not with
// objects. A run that cannot list every target writes nothing, so a
// transient error never empties a report.
//
// RBAC: list on every kind the GuardPolicies match; create, get, list,
// update and delete on reports and clusterreports.openreports.io; patch on
// guardpolicies/status; list on namespaces when a policy selects
// namespaces by label; GuardPolicies and CRDs are read from Cache, whose
// informers the webhook runs anyway.
type Auditor struct {
	// Engines holds the engine objects are evaluated with.
	Engines Engines
	// Cache reads GuardPolicies and, unless CRDs is set, CRDs: the
	// manager's cache.
	Cache client.Reader
	// CRDs, when set, give the storage versions instead of the cluster's
	// CRDs (the webhook's --crds files).
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// Mapper resolves kinds to resources.
	Mapper meta.RESTMapper
	// Lister reads the stored objects, paged, at its client's rate.
	Lister *audit.Lister
	// Client writes reports and GuardPolicy status, uncached.
	Client client.Client
	// Interval is the time between audits when nothing changes. Default
	// DefaultInterval.
	Interval time.Duration
	// MaxResultsPerReport bounds each report's results; more are counted
	// in its crdguard.dev/results-dropped annotation. Default
	// DefaultMaxResultsPerReport.
	MaxResultsPerReport int
	// Metrics records each run; nil records nothing.
	Metrics *Metrics
	// Log reports runs and their errors.
	Log logr.Logger
}

// NeedLeaderElection is true: one replica audits and writes reports.
func (a *Auditor) NeedLeaderElection() bool { return true }

// Start audits once an engine is loaded, then again on every new engine
// and every Interval, until ctx is done.
func (a *Auditor) Start(ctx context.Context) error {
	interval := cmp.Or(a.Interval, DefaultInterval)
	var audited *policies.Engine
	var due time.Time
	ticker := time.NewTicker(engineCheck)
	defer ticker.Stop()
	for {
		if engine := a.Engines.Load(); engine != nil && (engine != audited || !time.Now().Before(due)) {
			audited, due = engine, time.Now().Add(interval)
			if _, err := a.Run(ctx, engine); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				a.Log.Error(err, "Background audit failed")
				due = time.Now().Add(min(interval, retryAfter))
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// Stats say what one run did.
type Stats struct {
	// Objects is the number of objects evaluated.
	Objects int
	// Results is the number of report results written.
	Results int
}

// Run audits once with engine: lists and evaluates every stored object the
// GuardPolicies match, writes the reports, each audited policy's status
// and the metrics.
func (a *Auditor) Run(ctx context.Context, engine *policies.Engine) (Stats, error) {
	start := time.Now()
	guardPolicies, err := a.guardPolicies(ctx)
	if err != nil {
		return Stats{}, err
	}
	crds := a.CRDs
	if crds == nil {
		if crds, err = a.clusterCRDs(ctx); err != nil {
			return Stats{}, err
		}
	}
	storage := audit.StorageVersions(crds)
	targets, skipped, err := audit.Targets(guardPolicies, storage, a.Mapper)
	if err != nil {
		return Stats{}, err
	}
	for _, s := range skipped {
		a.Log.Info("Not audited", "reason", s)
	}
	var audited []string
	for _, p := range guardPolicies {
		if t, _, _ := audit.Targets([]*v1alpha1.GuardPolicy{p}, storage, a.Mapper); len(t) > 0 {
			audited = append(audited, p.Name)
		}
	}
	found := newFindings(cmp.Or(a.MaxResultsPerReport, DefaultMaxResultsPerReport))
	now := metav1.Timestamp{Seconds: start.Unix()}
	var stats Stats
	err = a.Lister.Audit(ctx, engine, targets, "", func(_ audit.Target, obj *unstructured.Unstructured, res policies.Result, err error) error {
		stats.Objects++
		found.add(obj, res, err, now)
		return nil
	})
	if err != nil {
		return stats, err
	}
	for _, results := range found.byNamespace {
		stats.Results += len(results)
	}

	writer := &reportWriter{client: a.Client}
	reportErr := writer.write(ctx, found)
	statusErr := writeStatus(ctx, a.Client, audited, found, metav1.Now())
	took := time.Since(start)
	a.Metrics.observe(found, took)
	a.Log.Info("Audited stored objects", "kindCount", len(targets), "objectCount", stats.Objects, "resultCount", stats.Results, "took", took.Round(time.Millisecond).String())
	return stats, errors.Join(reportErr, statusErr)
}

// guardPolicies reads the GuardPolicies as the webhook's cache holds them
// (unstructured, the webhook's source's informer), decoded for their
// match; a policy that does not decode is skipped and logged: the
// webhook's source already reports it as invalid.
func (a *Auditor) guardPolicies(ctx context.Context) ([]*v1alpha1.GuardPolicy, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("GuardPolicyList"))
	if err := a.Cache.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing GuardPolicies: %w", err)
	}
	var out []*v1alpha1.GuardPolicy
	for i := range list.Items {
		p := &v1alpha1.GuardPolicy{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, p); err != nil {
			a.Log.Error(err, "GuardPolicy cannot be decoded; not audited", "policy", list.Items[i].GetName())
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

func (a *Auditor) clusterCRDs(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var list apiextensionsv1.CustomResourceDefinitionList
	if err := a.Cache.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("listing CustomResourceDefinitions: %w", err)
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, len(list.Items))
	for i := range list.Items {
		crds[i] = &list.Items[i]
	}
	return crds, nil
}
