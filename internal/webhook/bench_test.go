package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

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

// serveReview POSTs a review of the example CR to hook, in-process.
func serveReview(b *testing.B, hook http.Handler) {
	req := request(admissionv1.Create, bob, mysqlexample.JSON(b, "good.yaml"), nil)
	review, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  &req.AdmissionRequest,
	})
	if err != nil {
		b.Fatal(err)
	}
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
