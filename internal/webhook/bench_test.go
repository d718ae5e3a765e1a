package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/internal/mysqlexample"
)

// BenchmarkValidate is /validate deciding one CREATE of the example
// MySQLCluster (schema and policy) once the review is decoded: what
// crdguard adds to the framework's cost per request.
func BenchmarkValidate(b *testing.B) {
	v := &Validator{Engines: engines(b)}
	for _, name := range []string{"good.yaml", "unsafe.yaml"} {
		b.Run(name, func(b *testing.B) {
			req := request(admissionv1.Create, bob, mysqlexample.JSON(b, name), nil)
			if resp := v.Handle(b.Context(), req); resp.Result != nil && resp.Result.Code >= 500 {
				b.Fatalf("%s: %s", name, resp.Result.Message)
			}
			b.ReportAllocs()
			for b.Loop() {
				v.Handle(b.Context(), req)
			}
		})
	}
}

// BenchmarkServeValidate is one AdmissionReview through /validate as the
// server receives it: the review decoded, decided, encoded, with metrics.
func BenchmarkServeValidate(b *testing.B) {
	serveReview(b, webhooks(Config{Engines: engines(b), Metrics: NewMetrics(), BodyBudget: NewBodyBudget(64 << 20)})[ValidatePath])
}

// BenchmarkServeAllowAll is BenchmarkServeValidate's review served by
// controller-runtime's admission.Webhook with a handler that allows
// everything: the framework's floor, which never decodes the object.
func BenchmarkServeAllowAll(b *testing.B) {
	serveReview(b, &admission.Webhook{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Allowed("")
	})})
}

// BenchmarkServeHTTP2 is BenchmarkServeValidate and
// BenchmarkServeAllowAll over TLS and HTTP/2, as kube-apiserver calls a
// webhook: eight requests at a time on one connection, each served on a
// goroutine of its own. Client and server share the process, so time,
// allocations and cpu-ns/op (the process's CPU time per request, which
// other processes on the machine inflate far less than the time) are both
// sides'.
func BenchmarkServeHTTP2(b *testing.B) {
	for _, hook := range []struct {
		name    string
		handler http.Handler
	}{
		{"validate", webhooks(Config{Engines: engines(b), Metrics: NewMetrics(), BodyBudget: NewBodyBudget(64 << 20)})[ValidatePath]},
		{"allow-all", &admission.Webhook{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
			return admission.Allowed("")
		})}},
	} {
		b.Run(hook.name, func(b *testing.B) {
			server := httptest.NewUnstartedServer(hook.handler)
			server.EnableHTTP2 = true
			server.StartTLS()
			defer server.Close()
			client, review := server.Client(), exampleReview(b)
			post := func() error {
				req, err := http.NewRequestWithContext(b.Context(), http.MethodPost, server.URL+ValidatePath, bytes.NewReader(review))
				if err != nil {
					return err
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					return err
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
					return fmt.Errorf("%s %s: %v", resp.Proto, resp.Status, err)
				}
				return nil
			}
			// The connection is made before the requests run in
			// parallel, which would each start one.
			if err := post(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetParallelism(8 / runtime.GOMAXPROCS(0))
			cpu := processCPU(b)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := post(); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(processCPU(b)-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the CPU time this process has spent, user and system.
func processCPU(b *testing.B) time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		b.Fatal(err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// exampleReview is an AdmissionReview of a CREATE of the example CR.
func exampleReview(b testing.TB) []byte {
	req := request(admissionv1.Create, bob, mysqlexample.JSON(b, "good.yaml"), nil)
	review, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  &req.AdmissionRequest,
	})
	if err != nil {
		b.Fatal(err)
	}
	return review
}

// serveReview POSTs a review of the example CR to hook, in-process.
func serveReview(b *testing.B, hook http.Handler) {
	review := exampleReview(b)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		req := httptest.NewRequestWithContext(b.Context(), http.MethodPost, ValidatePath, bytes.NewReader(review))
		req.Header.Set("Content-Type", "application/json")
		hook.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
		}
	}
}
