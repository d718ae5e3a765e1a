package e2e

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/auditor"
	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/audit"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Generous ceilings for auditing scaleObjects objects with the webhook's
// default rate (20 requests/s) and page size (250): an order of magnitude
// above a run on two shared cores (docs/operations.md, Reliability), so
// they catch a regression in kind (objects held in memory, a request per
// object), not noise.
const (
	scaleObjects     = 5000
	scaleFailing     = scaleObjects / 10
	scaleMaxDuration = 3 * time.Minute
	scaleMaxHeap     = 256 << 20
)

// TestBackgroundAuditScale audits 5,000 stored objects, one in ten failing
// a rule, in one run and bounds its time and the heap it grows by.
func TestBackgroundAuditScale(t *testing.T) {
	installAuditCRDs(t)
	const namespace = "background-audit-scale"
	labelledNamespace(t, namespace, "scale")
	createWidgets(t, namespace)

	policy := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(`
apiVersion: crdguard.dev/v1alpha1
kind: GuardPolicy
metadata: {name: background-scale}
spec:
  match:
    resources: [{group: test.crdguard.dev, kinds: [Widget]}]
    namespaceSelector: {matchLabels: {`+auditLabel+`: scale}}
  rules:
  - name: replicas
    cel:
      expression: "object.spec.replicas <= 5"
      messageExpression: "'at most 5 replicas, found ' + string(object.spec.replicas)"
      fieldPath: spec.replicas
`), &policy.Object); err != nil {
		t.Fatal(err)
	}
	if err := cluster.client.Create(t.Context(), policy); err != nil {
		t.Fatalf("creating the GuardPolicy: %v", err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = cluster.client.Delete(ctx, policy)
		_ = reportClient(t).Delete(ctx, &openreportsv1alpha1.Report{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: auditor.ReportName}})
	})
	// The engine as the webhook's source compiles it: the policy as stored,
	// against the CRD the objects are stored with.
	registry, err := schema.RegistryFromFiles(t.Context(), cluster.crds[setWidgets])
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.client.Get(t.Context(), client.ObjectKeyFromObject(policy), policy); err != nil {
		t.Fatal(err)
	}
	compiled, errs := policies.PolicyFromObject(t.Context(), policy, registry)
	if len(errs) > 0 {
		t.Fatalf("GuardPolicy: %v", errs.ToAggregate())
	}
	engine, err := policies.NewEngine(registry, compiled)
	if err != nil {
		t.Fatal(err)
	}
	engines := webhook.NewEngineHolder(engine)
	audit := newAuditor(t, engines)

	runtime.GC()
	base := heapBytes()
	peak := sampleHeapPeak()
	start := time.Now()
	stats, err := audit.Run(t.Context(), engines.Load())
	took := time.Since(start)
	grown := peak() - base
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	t.Logf("audited %d objects (%d results) in %s; heap grew by at most %.1f MiB", stats.Objects, stats.Results, took.Round(time.Millisecond), float64(grown)/(1<<20))

	if stats.Objects < scaleObjects || stats.Results != scaleFailing {
		t.Errorf("audited %d objects with %d results; want at least %d objects and %d results", stats.Objects, stats.Results, scaleObjects, scaleFailing)
	}
	report := &openreportsv1alpha1.Report{}
	if err := reportClient(t).Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: auditor.ReportName}, report); err != nil {
		t.Fatal(err)
	}
	if report.Summary.Fail != scaleFailing || len(report.Results) != scaleFailing {
		t.Errorf("report: summary %+v, %d results; want %d failures", report.Summary, len(report.Results), scaleFailing)
	}
	if took > scaleMaxDuration || grown > scaleMaxHeap {
		t.Errorf("audit took %s and grew the heap by %d MiB; the bounds are %s and %d MiB", took, grown>>20, scaleMaxDuration, scaleMaxHeap>>20)
	}
}

// createWidgets stores scaleObjects Widgets in namespace, every tenth with
// 7 replicas (the policy allows 5), from many goroutines.
func createWidgets(t *testing.T, namespace string) {
	t.Helper()
	c, err := client.New(restConfig(t), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= scaleObjects {
					return
				}
				replicas := int64(1)
				if i%10 == 0 {
					replicas = 7
				}
				w := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "test.crdguard.dev/v1", "kind": "Widget",
					"metadata": map[string]any{"name": fmt.Sprintf("w-%04d", i), "namespace": namespace},
					"spec":     map[string]any{"size": "small", "replicas": replicas},
				}}
				if err := c.Create(t.Context(), w); err != nil {
					errs <- fmt.Errorf("creating widget %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("stored %d widgets in %s", scaleObjects, time.Since(start).Round(time.Millisecond))
}

// newAuditor is an Auditor as crdguard-webhook --audit builds it, with its
// default rate and page size, reading policies and CRDs live.
func newAuditor(t *testing.T, engines auditor.Engines) *auditor.Auditor {
	t.Helper()
	cfg := restConfig(t)
	cfg.QPS, cfg.Burst = 20, 20
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &auditor.Auditor{
		Engines: engines,
		Cache:   cluster.client,
		Mapper:  cluster.client.RESTMapper(),
		Lister:  &audit.Lister{Client: dyn, PageSize: 250},
		Client:  reportClient(t),
		Log:     testr.New(t),
	}
}

// heapBytes is the heap's live and not yet collected objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeapPeak samples heapBytes every millisecond until the returned
// function is called, which returns the highest sample.
func sampleHeapPeak() func() uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ticker := time.NewTicker(time.Millisecond)
		defer ticker.Stop()
		for {
			if h := heapBytes(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-ticker.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		return peak.Load()
	}
}
