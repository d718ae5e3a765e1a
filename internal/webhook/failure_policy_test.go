package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// fixedHandler answers every request with one response.
type fixedHandler admission.Response

func (h fixedHandler) Handle(context.Context, admission.Request) admission.Response {
	return admission.Response(h)
}

func TestFailurePolicyDecides(t *testing.T) {
	tests := []struct {
		name     string
		response admission.Response
		code     int
		body     string // a substring
	}{
		{"cannot evaluate: HTTP 500 for failurePolicy", admission.Errored(http.StatusInternalServerError, errNotReady), http.StatusInternalServerError, errNotReady.Error()},
		{"denied: a review the API server reads", admission.Denied("no"), http.StatusOK, `"allowed":false`},
		{"bad request: a review", admission.Errored(http.StatusBadRequest, io.ErrUnexpectedEOF), http.StatusOK, `"code":400`},
		{"allowed: a review", admission.Allowed(""), http.StatusOK, `"allowed":true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hook := &admission.Webhook{Handler: fixedHandler(tt.response)}
			body, _ := json.Marshal(admissionv1.AdmissionReview{
				TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
				Request:  &admissionv1.AdmissionRequest{UID: "1"},
			})
			req := httptest.NewRequest(http.MethodPost, ValidatePath, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			failurePolicyDecides(hook).ServeHTTP(rec, req)
			if rec.Code != tt.code || !strings.Contains(rec.Body.String(), tt.body) {
				t.Errorf("HTTP %d %q, want %d containing %q", rec.Code, rec.Body.String(), tt.code, tt.body)
			}
		})
	}
}

// A body that is no AdmissionReview (400), or one over controller-runtime's
// 7 MiB bound (413), gets a denial the API server reads as such: the request
// itself is wrong, so failurePolicy must not let it through.
func TestMalformedReviews(t *testing.T) {
	hook := &admission.Webhook{Handler: fixedHandler(admission.Allowed(""))}
	for name, tt := range map[string]struct {
		body string
		code int32
	}{
		"not JSON":       {"{not json", http.StatusBadRequest},
		"over the bound": {`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","object":{"x":"` + strings.Repeat("a", 8<<20) + `"}}}`, http.StatusRequestEntityTooLarge},
	} {
		t.Run(name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, ValidatePath, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			failurePolicyDecides(hook).ServeHTTP(rec, req)
			var review admissionv1.AdmissionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || rec.Code != http.StatusOK || review.Response == nil {
				t.Fatalf("HTTP %d %q: want a review", rec.Code, rec.Body.String())
			}
			if review.Response.Allowed || review.Response.Result == nil || review.Response.Result.Code != tt.code {
				t.Errorf("response = %+v, want denied with code %d", review.Response, tt.code)
			}
		})
	}
}
