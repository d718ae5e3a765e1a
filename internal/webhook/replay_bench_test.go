package webhook

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/manifest"
)

// replayBenchObjects is how many stored ServiceMonitors
// BenchmarkCRDReplay replays per operation.
const replayBenchObjects = 2000

// BenchmarkCRDReplay is /validate-crd's replay of stored ServiceMonitors
// against prometheus-operator's CRD with a changed schema: listed in
// pages of 500 from an API server (served from memory, so the listing
// costs what decoding it costs) and each validated as an update of itself
// and as a create. objects/s is what bounds --crd-replay-max-objects
// within --crd-replay-timeout.
func BenchmarkCRDReplay(b *testing.B) {
	old := serviceMonitorCRD(b)
	changed := old.DeepCopy()
	changed.Spec.Versions[0].Schema.OpenAPIV3Schema.Description = "changed"
	server := httptest.NewServer(storedPages(b, serviceMonitorObjects(b, replayBenchObjects), 500))
	defer server.Close()
	client, err := dynamic.NewForConfig(&rest.Config{Host: server.URL, QPS: -1})
	if err != nil {
		b.Fatal(err)
	}
	g := &CRDGuard{Client: client, PageSize: 500, MaxObjects: replayBenchObjects, Timeout: 10 * time.Minute}
	b.ReportAllocs()
	for b.Loop() {
		invalid, err := g.replay(b.Context(), old, changed)
		if err != nil || len(invalid) > 0 {
			b.Fatalf("the benchmark objects must replay cleanly: %v %v", err, objectStrings(invalid))
		}
	}
	b.ReportMetric(float64(b.N*replayBenchObjects)/b.Elapsed().Seconds(), "objects/s")
}

// serviceMonitorCRD is prometheus-operator's ServiceMonitor CRD.
func serviceMonitorCRD(b *testing.B) *apiextensionsv1.CustomResourceDefinition {
	crds, err := corpus.PrometheusOperator.CRDs(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	for _, crd := range crds {
		if crd.Spec.Names.Kind == "ServiceMonitor" {
			return crd
		}
	}
	b.Fatal("no ServiceMonitor CRD in the corpus")
	return nil
}

// serviceMonitorObjects makes n ServiceMonitors from pkg/schema's
// benchmark template, each with its own name, namespace and selector.
func serviceMonitorObjects(b *testing.B, n int) []map[string]any {
	docs, err := manifest.ReadFile(filepath.Join(corpus.RepositoryRoot(), "pkg", "schema", "testdata", "bench", "servicemonitor.yaml"))
	if err != nil || len(docs) != 1 || docs[0].Err != nil {
		b.Fatalf("reading the ServiceMonitor template: %v %v", err, docs)
	}
	objects := make([]map[string]any, n)
	for i := range objects {
		obj := docs[0].Object.DeepCopy()
		name, namespace := fmt.Sprintf("app-%d", i), fmt.Sprintf("team-%d", i%100)
		obj.SetName(name)
		obj.SetNamespace(namespace)
		obj.SetResourceVersion(strconv.Itoa(i + 1))
		if err := unstructured.SetNestedStringMap(obj.Object, map[string]string{"app.kubernetes.io/name": name}, "spec", "selector", "matchLabels"); err != nil {
			b.Fatal(err)
		}
		objects[i] = obj.Object
	}
	return objects
}

// storedPages serves objects as list pages of pageSize, the continue
// token being the next page's index.
func storedPages(b *testing.B, objects []map[string]any, pageSize int) http.Handler {
	var pages [][]byte
	for start := 0; start < len(objects); start += pageSize {
		end := min(start+pageSize, len(objects))
		list := map[string]any{"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitorList", "metadata": map[string]any{}, "items": objects[start:end]}
		if end < len(objects) {
			list["metadata"] = metav1.ListMeta{Continue: strconv.Itoa(len(pages) + 1)}
		}
		page, err := json.Marshal(list)
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, page)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("continue"))
		if page >= len(pages) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(pages[page])
	})
}
