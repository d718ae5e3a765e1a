package reliability

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// The load: requests in total, and how many are in flight at once (each
// on its own keep-alive TLS connection, as the API server's pool holds
// them).
const (
	loadRequests    = 20000
	loadConcurrency = 32
	// loadHeapGrowth bounds what the heap may keep after the load: the
	// webhook keeps nothing per request, so what is left is noise (metric
	// series, pooled buffers), far below this.
	loadHeapGrowth = 32 << 20
)

// TestLoad sends 20,000 admission requests (good.yaml, unsafe.yaml and
// bad.yaml in turn) at concurrency 32 to /validate: every one gets its
// verdict, none fails, and afterwards the goroutines are back to what they
// were and the heap has not grown.
func TestLoad(t *testing.T) {
	good := example(t, "good.yaml")
	unsafe := example(t, "unsafe.yaml")
	bad, err := localcluster.ReadObject(filepath.Join(cluster.examples, "bad.yaml"), "staging")
	if err != nil {
		t.Fatal(err)
	}
	// Allowed, denied by the policy, denied by the schema.
	bodies := [][]byte{review("load", admissionv1.Create, good, nil), review("load", admissionv1.Create, unsafe, nil), review("load", admissionv1.Create, bad, nil)}

	// Warm up first, so what starts on the first request (the server's
	// connection goroutines, lazily built pools) is not counted as a leak.
	warm, warmTransport := webhookClient(1)
	if a, err := postReview(t.Context(), warm, "/validate", bodies[0]); err != nil || !a.response().Allowed {
		t.Fatalf("warm-up: %v %v", a, err)
	}
	warmTransport.CloseIdleConnections()
	before := heapInUse()
	goroutinesBefore := runtime.NumGoroutine()
	ignoreBefore := goleak.IgnoreCurrent()

	c, transport := webhookClient(loadConcurrency)
	var next, allowed, denied atomic.Int64
	var errs sync.Map // first failure per kind, for the message
	var failures atomic.Int64
	var wg sync.WaitGroup
	for range loadConcurrency {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= loadRequests {
					return
				}
				wantAllowed := i%3 == 0
				a, err := postReview(t.Context(), c, "/validate", bodies[i%3])
				switch {
				case err != nil:
					errs.LoadOrStore("transport", err.Error())
				case a.status != http.StatusOK || a.response() == nil:
					errs.LoadOrStore(fmt.Sprintf("HTTP %d", a.status), a.String())
				case a.response().UID != "load":
					errs.LoadOrStore("uid", a.String())
				case a.response().Allowed != wantAllowed:
					errs.LoadOrStore("verdict", a.String())
				case !wantAllowed && a.code() != http.StatusUnprocessableEntity:
					errs.LoadOrStore("denial code", a.String())
				default:
					if wantAllowed {
						allowed.Add(1)
					} else {
						denied.Add(1)
					}
					continue
				}
				failures.Add(1)
			}
		})
	}
	wg.Wait()
	errs.Range(func(kind, first any) bool {
		t.Errorf("%s failures, the first: %s", kind, first)
		return true
	})
	wantAllowed := int64(loadRequests+2) / 3 // i%3 == 0 for i < loadRequests
	if failures.Load() != 0 || allowed.Load() != wantAllowed || denied.Load() != loadRequests-wantAllowed {
		t.Errorf("%d failures, %d allowed, %d denied; want 0, %d, %d", failures.Load(), allowed.Load(), denied.Load(), wantAllowed, loadRequests-wantAllowed)
	}

	// Closing the client's connections ends the server's goroutines for
	// them; nothing else may be left. On a loaded machine they take a
	// moment to see the close: wait for the count, then name any leak.
	transport.CloseIdleConnections()
	_ = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return runtime.NumGoroutine() <= goroutinesBefore, nil
	})
	goleak.VerifyNone(t, ignoreBefore)
	if grown := heapInUse() - before; grown > loadHeapGrowth {
		t.Errorf("the heap grew by %d MiB over the load; want at most %d MiB", grown>>20, loadHeapGrowth>>20)
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
