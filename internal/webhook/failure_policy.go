package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
)

// failurePolicyDecides turns an admission response with code 500 into an
// HTTP 500. kube-apiserver takes any well-formed review with allowed=false
// as a denial, whatever the configuration's failurePolicy says; only a
// failed call (timeout, TLS error, non-200 status) is left to failurePolicy.
// "crdguard could not evaluate" must be such a failure, so that
// failurePolicy: Ignore keeps a cluster writable while crdguard cannot
// decide, and Fail keeps it closed.
func failurePolicyDecides(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buffered := &bufferedResponse{header: http.Header{}, code: http.StatusOK}
		next.ServeHTTP(buffered, r)
		var review admissionv1.AdmissionReview
		if buffered.code == http.StatusOK && json.Unmarshal(buffered.body.Bytes(), &review) == nil &&
			review.Response != nil && review.Response.Result != nil && review.Response.Result.Code == http.StatusInternalServerError {
			http.Error(w, review.Response.Result.Message, http.StatusInternalServerError)
			return
		}
		for k, v := range buffered.header {
			w.Header()[k] = v
		}
		w.WriteHeader(buffered.code)
		_, _ = w.Write(buffered.body.Bytes())
	})
}

// bufferedResponse holds a response until it is known what to send.
type bufferedResponse struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) WriteHeader(code int)        { b.code = code }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
