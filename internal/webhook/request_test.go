package webhook

import (
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TestWebhooksRequireOperation: a review without a request, or with an
// operation admission does not define, is a 400 on every path, never the
// allow a handler gives an operation it does not evaluate.
func TestWebhooksRequireOperation(t *testing.T) {
	for path, hook := range webhooks(Config{Engines: engines(t), CRDGuard: guard(storedWidgets())}) {
		for op, want := range map[admissionv1.Operation]string{
			"":      "the AdmissionReview has no request (no operation)",
			"PURGE": `unknown operation "PURGE"`,
		} {
			t.Run(path+"/"+string(op), func(t *testing.T) {
				resp := hook.Handle(t.Context(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: op}})
				if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusBadRequest || !strings.Contains(resp.Result.Message, want) {
					t.Errorf("got %+v, want denied with 400 %q", resp.AdmissionResponse, want)
				}
			})
		}
		// CONNECT is still allowed unevaluated.
		resp := hook.Handle(t.Context(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{UID: "c", Operation: admissionv1.Connect}})
		if !resp.Allowed {
			t.Errorf("%s: CONNECT got %+v, want allowed", path, resp.AdmissionResponse)
		}
	}
}

// TestDecodeObjectKeepsContentsOut: the error for an object without a
// kind, which is logged, does not quote the object as apimachinery's
// does.
func TestDecodeObjectKeepsContentsOut(t *testing.T) {
	_, err := decodeObject(runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","data":{"password":"c2VjcmV0"}}`)}, "object")
	if err == nil || err.Error() != "decoding the admission request's object: it has no kind" {
		t.Errorf("error = %v, want only that the kind is missing", err)
	}
}
