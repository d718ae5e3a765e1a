package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/schema"
)

// DefaultDebounce is how long Source waits after a change before it
// rebuilds, so a burst (kubectl apply -f of a directory, a Helm upgrade of
// many CRDs) costs one rebuild rather than one per object.
const DefaultDebounce = 500 * time.Millisecond

// Source watches GuardPolicies and CustomResourceDefinitions through
// a controller-runtime cache and stores a new engine in Engines after every
// change, debounced. It is a manager Runnable; Engines stays empty (so
// /readyz fails and requests get 500s) until the informers have synced and
// the first engine is built.
//
// A GuardPolicy whose stored version is invalid (it got past the
// /validate-policy webhook: created while that was not registered, or
// invalid against a crdguard version newer than the webhook's) never
// replaces its last good version: the engine keeps evaluating the last
// valid version this process saw of that object, the error is logged with
// the policy's name and crdguard_policy_invalid is 1 for it. An invalid
// policy with no good version is left out. Falling back to "no policy"
// only where there never was a good one keeps a typo from silently
// switching protection off.
//
// RBAC: get, list and watch on guardpolicies.crdguard.dev and, unless
// Schemas is set, on customresourcedefinitions.apiextensions.k8s.io.
type Source struct {
	// Cache provides the informers, normally the manager's GetCache().
	Cache cache.Cache
	// Engines receives every engine built for admission requests.
	Engines *webhook.EngineHolder
	// Mode says which rules the admission engine evaluates; ""
	// is ModeWebhook, every rule.
	Mode Mode
	// AllRules, when set, receives the engine of every rule too, whatever
	// Enforcement leaves out: what the background audit evaluates.
	AllRules *webhook.EngineHolder
	// Metrics records the engine's size and invalid policies; nil records
	// nothing.
	Metrics *Metrics
	// Log reports rebuilds and invalid policies.
	Log logr.Logger
	// Schemas, when set, are the CRD schemas (from --crds files) and CRDs
	// are not watched: for clusters where the webhook may not read CRDs.
	Schemas *schema.Registry
	// Debounce is the wait after a change before rebuilding; zero is
	// DefaultDebounce.
	Debounce time.Duration
	// Live reads GuardPolicies from the API server itself while a watch
	// is lost (see WatchLost), normally the manager's GetAPIReader(); nil
	// waits for the watch to come back.
	Live client.Reader
	// RecoveryInterval is how often a lost watch's GuardPolicies are read
	// live; zero is DefaultRecoveryInterval.
	RecoveryInterval time.Duration

	book policyBook
	// building serialises builds: they share book, and an older engine
	// must never be stored after a newer one.
	building sync.Mutex
	watch    watchState
}

// NeedLeaderElection is false: every replica serves requests, so every
// replica needs the current engine.
func (s *Source) NeedLeaderElection() bool { return false }

// Start registers the watches, builds the first engine once the informers
// have synced, then rebuilds after changes until ctx is done. It fails
// when a watch cannot be set up (the GuardPolicy CRD is not installed), so
// the manager stops; when RBAC forbids the list, the informer retries and
// logs the error and the webhook stays unready. Either way a webhook that
// cannot see its policies never looks healthy.
func (s *Source) Start(ctx context.Context) error {
	// One pending signal is enough: a rebuild reads everything anew.
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	handler := toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { notify() },
		UpdateFunc: func(oldObj, newObj any) {
			// Status and metadata updates (a CRD becoming Established,
			// a label on a policy) and resyncs change no schema or rule;
			// the generation moves when the spec does.
			o, oldOK := oldObj.(client.Object)
			n, newOK := newObj.(client.Object)
			if oldOK && newOK && o.GetUID() == n.GetUID() && o.GetGeneration() == n.GetGeneration() {
				return
			}
			notify()
		},
		DeleteFunc: func(any) { notify() },
	}
	watched := []client.Object{guardPolicyObject()}
	if s.Schemas == nil {
		watched = append(watched, &apiextensionsv1.CustomResourceDefinition{})
	}
	var synced []toolscache.InformerSynced
	for _, obj := range watched {
		informer, err := s.Cache.GetInformer(ctx, obj)
		if err != nil {
			return fmt.Errorf("watching %T %s: %w", obj, obj.GetObjectKind().GroupVersionKind().Kind, err)
		}
		reg, err := informer.AddEventHandler(handler)
		if err != nil {
			return fmt.Errorf("watching %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, err)
		}
		synced = append(synced, reg.HasSynced)
	}
	// Wait until the handlers have seen every object that existed, so the
	// first build sees them all and their Add events do not trigger a
	// second one.
	if !toolscache.WaitForCacheSync(ctx.Done(), synced...) {
		return nil // ctx is done
	}
	select {
	case <-changed:
	default:
	}
	s.rebuild(ctx)
	debounce(ctx, changed, cmp.Or(s.Debounce, DefaultDebounce), func() { s.rebuild(ctx) })
	return nil
}

// debounce calls rebuild once per burst of signals on changed: delay after
// the first, so signals that arrive meanwhile are served by the same
// rebuild. Its latency is bounded by delay plus one rebuild even when
// changes never stop, unlike a timer that restarts on every signal. It
// returns when ctx is done.
func debounce(ctx context.Context, changed <-chan struct{}, delay time.Duration, rebuild func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		// Signals that came during the wait are covered by this rebuild;
		// signals that come during it trigger the next.
		select {
		case <-changed:
		default:
		}
		rebuild()
	}
}

// guardPolicyObject is what the GuardPolicy informer is keyed by.
// Unstructured, because validation needs the object as the API server
// stored it, not as Go decodes it: a field the webhook's Go types do not
// know must fail the schema check, not vanish.
func guardPolicyObject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("GuardPolicy"))
	return u
}

// rebuild builds an engine from the cache and stores it. On an error the
// previous engine stays: serving with the last good policies beats serving
// with none.
func (s *Source) rebuild(ctx context.Context) {
	start := time.Now()
	stats, err := s.build(ctx, s.Cache)
	if err != nil {
		s.Metrics.engineBuilt(false)
		s.Log.Error(err, "Cannot rebuild the engine; still serving the previous one")
		return
	}
	s.Metrics.engineBuilt(true)
	s.Log.Info("Rebuilt the engine from the cluster", "policyCount", stats.Policies, "schemaCount", stats.Schemas, "took", time.Since(start).Round(time.Millisecond).String())
}

// build builds and stores an engine of the GuardPolicies policies lists
// (the cache, or the API server while a watch is lost) and the CRDs in
// the cache.
func (s *Source) build(ctx context.Context, policies client.Reader) (SourceStats, error) {
	s.building.Lock()
	defer s.building.Unlock()
	registry := s.Schemas
	if registry == nil {
		var crdList apiextensionsv1.CustomResourceDefinitionList
		if err := s.Cache.List(ctx, &crdList); err != nil {
			return SourceStats{}, fmt.Errorf("listing CustomResourceDefinitions: %w", err)
		}
		crds := make([]*apiextensionsv1.CustomResourceDefinition, len(crdList.Items))
		for i := range crdList.Items {
			crds[i] = &crdList.Items[i]
		}
		var err error
		if registry, err = schema.NewRegistry(crds...); err != nil {
			return SourceStats{}, err
		}
	}
	policyList := &unstructured.UnstructuredList{}
	policyList.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("GuardPolicyList"))
	if err := policies.List(ctx, policyList); err != nil {
		return SourceStats{}, fmt.Errorf("listing GuardPolicies: %w", err)
	}
	objs := make([]*unstructured.Unstructured, len(policyList.Items))
	for i := range policyList.Items {
		objs[i] = &policyList.Items[i]
	}
	engine, stats, problems, err := s.book.build(ctx, registry, objs)
	s.Metrics.setInvalidPolicies(problems)
	for _, p := range problems {
		keysAndValues := []any{"policy", p.Name, "generation", p.Generation}
		msg := "GuardPolicy is invalid and left out: it never had a valid version"
		if p.KeptGeneration != 0 {
			msg = "GuardPolicy is invalid; keeping its last good version"
			keysAndValues = append(keysAndValues, "keptGeneration", p.KeptGeneration)
		}
		s.Log.Error(p.Errs.ToAggregate(), msg, keysAndValues...)
	}
	if err != nil {
		return SourceStats{}, err
	}
	if s.AllRules != nil {
		s.AllRules.Store(engine)
	}
	if engine, err = s.Mode.admissionEngine(engine, s.book.policies(), registry); err != nil {
		return SourceStats{}, err
	}
	s.Engines.Store(engine)
	s.Metrics.SetSources(stats.Policies, stats.Schemas)
	return stats, nil
}

// policies returns the GuardPolicies the last build compiled.
func (b *policyBook) policies() []*v1alpha1.GuardPolicy {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*v1alpha1.GuardPolicy, 0, len(b.lastGood))
	for _, good := range b.lastGood {
		out = append(out, good.policy)
	}
	return out
}

// PolicyProblem is a GuardPolicy whose stored version is invalid.
type PolicyProblem struct {
	// Name and Generation identify the invalid version.
	Name       string
	Generation int64
	// Errs say what is wrong, by field path.
	Errs field.ErrorList
	// KeptGeneration is the generation of the last good version the
	// engine uses instead; 0 when there is none and the policy is left out.
	KeptGeneration int64
}

// policyBook remembers the last good version of each GuardPolicy object.
// The zero value is ready to use; it is safe for one builder at a time
// (the mutex guards against a test or a second caller, not a hot path).
type policyBook struct {
	mu       sync.Mutex
	lastGood map[string]goodPolicy
	// loaded is what the last build made of each stored GuardPolicy.
	loaded *LoadedPolicies
	// decoded are the stored versions the last build validated against
	// the GuardPolicy CRD, by UID: that check costs most of a rebuild
	// (the API server's schema and CEL validation) and depends on the
	// stored version alone, so a rebuild repeats it only for the policies
	// that changed.
	decoded map[types.UID]decodedPolicy
}

// decodedPolicy is one stored version as policies.DecodePolicy left it.
type decodedPolicy struct {
	// resourceVersion and generation identify the stored version: the
	// API server changes the first on every write.
	resourceVersion string
	generation      int64
	policy          *v1alpha1.GuardPolicy
	errs            field.ErrorList
}

// decode is policies.DecodePolicy, reusing the last build's result for
// the same stored version; next collects what this build decoded.
func (b *policyBook) decode(ctx context.Context, obj *unstructured.Unstructured, next map[types.UID]decodedPolicy) (*v1alpha1.GuardPolicy, field.ErrorList) {
	uid, version, generation := obj.GetUID(), obj.GetResourceVersion(), obj.GetGeneration()
	if last, ok := b.decoded[uid]; ok && uid != "" && version != "" && last.resourceVersion == version && last.generation == generation {
		next[uid] = last
		return last.policy, last.errs
	}
	p, errs := policies.DecodePolicy(ctx, obj)
	if uid != "" && version != "" {
		next[uid] = decodedPolicy{resourceVersion: version, generation: generation, policy: p, errs: errs}
	}
	return p, errs
}

type goodPolicy struct {
	// uid ties the version to one object: a policy deleted and created
	// again under the same name is a new policy, and an invalid new one
	// must not bring back the deleted one.
	uid        types.UID
	generation int64
	policy     *v1alpha1.GuardPolicy
}

// build validates every GuardPolicy against registry, puts the last good
// version in place of each invalid one, forgets deleted policies, and
// compiles the engine. problems lists the invalid policies, sorted by name.
func (b *policyBook) build(ctx context.Context, registry *schema.Registry, objs []*unstructured.Unstructured) (*policies.Engine, SourceStats, []PolicyProblem, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	next := make(map[string]goodPolicy, len(objs))
	loaded := &LoadedPolicies{Schemas: registry, Policies: make(map[string]LoadedPolicy, len(objs))}
	var chosen []*v1alpha1.GuardPolicy
	var problems []PolicyProblem
	decoded := make(map[types.UID]decodedPolicy, len(objs))
	for _, obj := range objs {
		name := obj.GetName()
		// PolicyFromObject in two halves: the first is kept across builds.
		p, errs := b.decode(ctx, obj, decoded)
		if len(errs) == 0 {
			if errs = policies.ValidateGuardPolicy(p, registry); len(errs) > 0 {
				p = nil
			}
		}
		state := LoadedPolicy{UID: obj.GetUID(), Generation: obj.GetGeneration()}
		if len(errs) == 0 {
			next[name] = goodPolicy{uid: obj.GetUID(), generation: obj.GetGeneration(), policy: p}
			chosen = append(chosen, p)
			state.Policy, state.PolicyGeneration = p, obj.GetGeneration()
			loaded.Policies[name] = state
			continue
		}
		problem := PolicyProblem{Name: name, Generation: obj.GetGeneration(), Errs: errs}
		if good, ok := b.lastGood[name]; ok && good.uid == obj.GetUID() {
			next[name] = good
			chosen = append(chosen, good.policy)
			problem.KeptGeneration = good.generation
			state.Policy, state.PolicyGeneration = good.policy, good.generation
		}
		state.Errs = errs
		loaded.Policies[name] = state
		problems = append(problems, problem)
	}
	slices.SortFunc(problems, func(a, b PolicyProblem) int { return strings.Compare(a.Name, b.Name) })
	engine, err := policies.NewEngine(registry, chosen...)
	if err != nil {
		// Every policy was validated against this registry, so this is
		// crdguard's bug; keep the book as it was so the next build has
		// the same last good versions to fall back on.
		var invalid *policies.InvalidPolicyError
		if errors.As(err, &invalid) {
			return nil, SourceStats{}, problems, fmt.Errorf("compiling validated GuardPolicy %q: %w", invalid.Name, err)
		}
		return nil, SourceStats{}, problems, err
	}
	// Only what exists now is remembered: a deleted policy is gone.
	b.lastGood, b.loaded, b.decoded = next, loaded, decoded
	return engine, SourceStats{Policies: len(chosen), Schemas: len(registry.Kinds())}, problems, nil
}
