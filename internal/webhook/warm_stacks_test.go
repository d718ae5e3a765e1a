package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/internal/mysqlexample"
)

// onWorker tells whether the calling goroutine is one of warmStacks'.
func onWorker() bool {
	buf := make([]byte, 64<<10)
	return strings.Contains(string(buf[:runtime.Stack(buf, false)]), "(*stackWorkers).work")
}

// A function handed over runs on a worker, and do returns once it has.
// Workers start with the first call: a call that finds none waiting yet
// runs where it is.
func TestWarmStacksRunOnWorkers(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ran, worker bool
		warmStacks.do(func() { ran, worker = true, onWorker() })
		if !ran {
			t.Fatal("do returned before the function ran")
		}
		if worker {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no call ran on a worker within 10 s")
		}
		runtime.Gosched()
	}
}

// A panic and a runtime.Goexit end the caller as they end the function,
// and leave the workers serving.
func TestWarmStacksEndTheCallerAsTheFunctionEnds(t *testing.T) {
	for range 4 * workersPerProc * runtime.GOMAXPROCS(0) {
		func() {
			defer func() {
				if p := recover(); p != "boom" {
					t.Errorf("recovered %v, want the function's panic", p)
				}
			}()
			warmStacks.do(func() { panic("boom") })
			t.Error("do returned after a panic")
		}()
		var wg sync.WaitGroup
		after := false
		wg.Go(func() {
			warmStacks.do(runtime.Goexit)
			after = true
		})
		wg.Wait()
		if after {
			t.Fatal("do returned after a runtime.Goexit")
		}
	}
	TestWarmStacksRunOnWorkers(t)
}

// An HTTP/2 review is decided on a worker, with the same answer.
func TestReviewServerDecidesHTTP2OnWarmStacks(t *testing.T) {
	validator := &Validator{Engines: engines(t)}
	var worker bool
	hook := serveReviews(handlerFunc(func(ctx context.Context, req admission.Request) admission.Response {
		worker = onWorker()
		return validator.Handle(ctx, req)
	}))
	req := request(admissionv1.Create, bob, mysqlexample.JSON(t, "good.yaml"), nil)
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  &req.AdmissionRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !worker {
		if time.Now().After(deadline) {
			t.Fatal("no HTTP/2 review was decided on a worker within 10 s")
		}
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, ValidatePath, bytes.NewReader(body))
		req.ProtoMajor, req.ProtoMinor, req.Proto = 2, 0, "HTTP/2.0"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		hook.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"allowed":true`) {
			t.Fatalf("HTTP %d %s, want an allowed review", rec.Code, rec.Body)
		}
	}
}

// Functions handed over one after the other all run on the worker that
// went idle last, whose stack is the likeliest to be in the caches still,
// rather than on each worker in turn.
func TestWarmStacksHandOverToTheLastIdleWorker(t *testing.T) {
	TestWarmStacksRunOnWorkers(t)
	goroutine := func() string {
		buf := make([]byte, 64)
		return strings.Fields(string(buf[:runtime.Stack(buf, false)]))[1]
	}
	var first string
	for range 2 * workersPerProc * runtime.GOMAXPROCS(0) {
		var this string
		warmStacks.do(func() { this = goroutine() })
		if first == "" {
			first = this
		}
		if this != first {
			t.Fatalf("ran on goroutine %s after %s, want the worker that went idle last", this, first)
		}
	}
}
