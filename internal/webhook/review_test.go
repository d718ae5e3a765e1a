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

func TestReviewServerLeavesFailuresToFailurePolicy(t *testing.T) {
	tests := []struct {
		name     string
		response admission.Response
		code     int
		body     string // a substring
	}{
		{"cannot evaluate: HTTP 500 for failurePolicy", admission.Errored(http.StatusInternalServerError, ErrNotReady), http.StatusInternalServerError, ErrNotReady.Error()},
		{"denied: a review the API server reads", admission.Denied("no"), http.StatusOK, `"allowed":false`},
		{"bad request: a review", admission.Errored(http.StatusBadRequest, io.ErrUnexpectedEOF), http.StatusOK, `"code":400`},
		{"allowed: a review", admission.Allowed(""), http.StatusOK, `"allowed":true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hook := serveReviews(fixedHandler(tt.response))
			body, _ := json.Marshal(admissionv1.AdmissionReview{
				TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
				Request:  &admissionv1.AdmissionRequest{UID: "1", Operation: admissionv1.Create},
			})
			req := httptest.NewRequest(http.MethodPost, ValidatePath, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			hook.ServeHTTP(rec, req)
			if rec.Code != tt.code || !strings.Contains(rec.Body.String(), tt.body) {
				t.Errorf("HTTP %d %q, want %d containing %q", rec.Code, rec.Body.String(), tt.code, tt.body)
			}
		})
	}
}

// A review is answered without a header of its own: net/http's HTTP/2
// server writes the headers of a handler that set one in a write of their
// own, and holds the handler until they are out: a small review took 15%
// more CPU time with one request in flight.
func TestReviewAnswersSetNoHeader(t *testing.T) {
	for _, response := range []admission.Response{admission.Allowed(""), admission.Denied("no"), admission.Errored(http.StatusBadRequest, io.ErrUnexpectedEOF)} {
		body, _ := json.Marshal(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request:  &admissionv1.AdmissionRequest{UID: "1", Operation: admissionv1.Create},
		})
		req := httptest.NewRequest(http.MethodPost, ValidatePath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := &headersAtWrite{ResponseRecorder: httptest.NewRecorder()}
		serveReviews(fixedHandler(response)).ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.set == nil || len(rec.set) != 0 {
			t.Errorf("answer with code %d: HTTP %d with headers %v, want 200 and none", response.Result.Code, rec.Code, rec.set)
		}
	}
}

// headersAtWrite records the headers a handler set when it first writes;
// ResponseRecorder adds the sniffed Content-Type to its own.
type headersAtWrite struct {
	*httptest.ResponseRecorder
	set http.Header
}

func (w *headersAtWrite) Write(b []byte) (int, error) {
	if w.set == nil {
		w.set = w.Header().Clone()
	}
	return w.ResponseRecorder.Write(b)
}

// A body that is no AdmissionReview (400), or one over controller-runtime's
// 7 MiB bound (413), gets a denial the API server reads as such: the request
// itself is wrong, so failurePolicy must not let it through.
func TestMalformedReviews(t *testing.T) {
	hook := serveReviews(fixedHandler(admission.Allowed("")))
	for name, tt := range map[string]struct {
		body    string
		code    int32
		message string
	}{
		"not JSON":       {"{not json", http.StatusBadRequest, "decoding the AdmissionReview: invalid character 'n' looking for beginning of object key string"},
		"over the bound": {`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","object":{"x":"` + strings.Repeat("a", 8<<20) + `"}}}`, http.StatusRequestEntityTooLarge, "request entity is too large; limit is 7340032 bytes"},
		"another kind":   {`{"apiVersion":"v1","kind":"Pod","request":{"uid":"1","operation":"CREATE"}}`, http.StatusBadRequest, `the body is a "Pod" of "v1", not an AdmissionReview`},
		"no kind":        {`{"apiVersion":"admission.k8s.io/v1","request":{"uid":"1","operation":"CREATE"}}`, http.StatusBadRequest, `the body is a "" of "admission.k8s.io/v1", not an AdmissionReview`},
		"a request that is not an object": {`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":[]}`, http.StatusBadRequest,
			"decoding the AdmissionReview: json: cannot unmarshal array into Go struct field AdmissionReview.request of type v1.AdmissionRequest"},
	} {
		t.Run(name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, ValidatePath, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			hook.ServeHTTP(rec, req)
			var review admissionv1.AdmissionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || rec.Code != http.StatusOK || review.Response == nil {
				t.Fatalf("HTTP %d %q: want a review", rec.Code, rec.Body.String())
			}
			if r := review.Response; r.Allowed || r.Result == nil || r.Result.Code != tt.code || r.Result.Message != tt.message {
				t.Errorf("response = %+v, want denied with code %d and message %q", r, tt.code, tt.message)
			}
		})
	}
}

// Only POST carries a review: any other method is a 405 with Allow: POST,
// and no review at all.
func TestReviewServerServesOnlyPOST(t *testing.T) {
	hook := serveReviews(fixedHandler(admission.Allowed("")))
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodHead} {
		req := httptest.NewRequest(method, ValidatePath, strings.NewReader(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE"}}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		hook.ServeHTTP(rec, req)
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != http.MethodPost || strings.Contains(rec.Body.String(), "AdmissionReview") {
			t.Errorf("%s: HTTP %d, Allow %q, body %q; want 405, POST and no review", method, rec.Code, rec.Header().Get("Allow"), rec.Body.String())
		}
	}
}

// TestReviewVersions: a review is answered in its own version, v1 or
// v1beta1, and one without apiVersion and kind as v1; the response carries
// the request's UID.
func TestReviewVersions(t *testing.T) {
	hook := serveReviews(fixedHandler(admission.Allowed("")))
	for typeMeta, want := range map[string]string{
		`"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",`:      `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1",`,
		`"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview",`: `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1",`,
		``: `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1",`,
	} {
		req := httptest.NewRequest(http.MethodPost, ValidatePath, strings.NewReader(`{`+typeMeta+`"request":{"uid":"u-7","operation":"CREATE"}}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		hook.ServeHTTP(rec, req)
		if got := rec.Body.String(); rec.Code != http.StatusOK || !strings.HasPrefix(got, want) || !strings.Contains(got, `"uid":"u-7","allowed":true`) {
			t.Errorf("{%s...}: HTTP %d %s, want 200 starting %s with the request's uid, allowed", typeMeta, rec.Code, got, want)
		}
	}
}

// recordingHandler records the request it is given.
type recordingHandler struct{ got *admission.Request }

func (h recordingHandler) Handle(_ context.Context, req admission.Request) admission.Response {
	*h.got = req
	return admission.Allowed("")
}

// TestReviewObjects: serveReviews decodes the objects with the review, as
// decodeObject reads them; serveRawReviews leaves their JSON; an object
// that is no JSON object reaches the handler as JSON, to be reported as
// the handler reports any object it cannot decode.
func TestReviewObjects(t *testing.T) {
	const prefix = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"UPDATE",`
	serve := func(hook reviewServer, body string) admission.Request {
		t.Helper()
		var got admission.Request
		hook.Handler = requireOperation(recordingHandler{&got})
		req := httptest.NewRequest(http.MethodPost, ValidatePath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		hook.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"allowed":true`) {
			t.Fatalf("HTTP %d %s, want allowed", rec.Code, rec.Body)
		}
		return got
	}
	body := prefix + `"object":{"apiVersion":"v1","kind":"ConfigMap","data":{"n":"1"},"spec":{"replicas":3,"ratio":1.5}},"oldObject":null}}`

	got := serve(serveReviews(fixedHandler{}), body)
	obj, err := decodeObject(got.Object, "object")
	if err != nil || len(got.Object.Raw) != 0 {
		t.Fatalf("decoded object: %v, raw %q; want it decoded with the review", err, got.Object.Raw)
	}
	if replicas, ratio := obj.Object["spec"].(map[string]any)["replicas"], obj.Object["spec"].(map[string]any)["ratio"]; replicas != int64(3) || ratio != 1.5 || obj.GetKind() != "ConfigMap" {
		t.Errorf("object %v: want kind ConfigMap, replicas int64(3) and ratio 1.5 as the API machinery decodes them", obj.Object)
	}
	if _, err := decodeObject(got.OldObject, "oldObject"); err == nil || err.Error() != "the admission request has no oldObject" {
		t.Errorf("null oldObject: %v, want it missing", err)
	}

	got = serve(serveRawReviews(fixedHandler{}), body)
	if !strings.HasPrefix(string(got.Object.Raw), `{"apiVersion":"v1","kind":"ConfigMap"`) || got.Object.Object != nil {
		t.Errorf("raw review: object %q / %v, want its JSON only", got.Object.Raw, got.Object.Object)
	}

	got = serve(serveReviews(fixedHandler{}), prefix+`"object":42}}`)
	if _, err := decodeObject(got.Object, "object"); err == nil || err.Error() != "decoding the admission request's object: json: cannot unmarshal number into Go value of type map[string]interface {}" {
		t.Errorf("object 42: %v, want the handler's decoding error", err)
	}
}
