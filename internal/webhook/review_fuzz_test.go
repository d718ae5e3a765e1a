package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/mysqlexample"
)

// FuzzAdmissionReview sends arbitrary bodies to /validate, /mutate and
// /validate-policy as the server serves them, but without panic recovery,
// so a panic fails the fuzzer: every body gets an AdmissionReview, and a
// denial always carries a 4xx code and a message. The example policy
// evaluates nothing it cannot, so a 500 is a bug too.
func FuzzAdmissionReview(f *testing.F) {
	holder, err := mysqlEngine()
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range admissionReviewSeeds(f) {
		f.Add(seed)
	}
	hooks := map[string]http.Handler{
		ValidatePath:       withoutPanicRecovery(serveReviews(&Validator{Engines: holder})),
		MutatePath:         withoutPanicRecovery(serveReviews(&Mutator{Engines: holder})),
		ValidatePolicyPath: withoutPanicRecovery(serveReviews(&PolicyValidator{Engines: holder})),
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for path, hook := range hooks {
			req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			hook.ServeHTTP(rec, req)
			var review admissionv1.AdmissionReview
			if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &review) != nil || review.Response == nil {
				t.Fatalf("%s: HTTP %d %q, want an AdmissionReview", path, rec.Code, rec.Body.String())
			}
			if r := review.Response; !r.Allowed && (r.Result == nil || r.Result.Code < 400 || r.Result.Code > 499 || r.Result.Message == "") {
				t.Fatalf("%s: denied without a 4xx code and a message: %+v", path, r)
			}
		}
	})
}

// admissionReviewSeeds are reviews of every example object and policy, as
// the API server sends them, for each operation.
func admissionReviewSeeds(f testing.TB) [][]byte {
	read := func(name string) *unstructured.Unstructured {
		data, err := os.ReadFile(mysqlexample.Path(name))
		if err != nil {
			f.Fatal(err)
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			f.Fatal(err)
		}
		return obj
	}
	raw := func(obj *unstructured.Unstructured) []byte {
		if obj == nil {
			return nil
		}
		data, err := obj.MarshalJSON()
		if err != nil {
			f.Fatal(err)
		}
		return data
	}
	var seeds [][]byte
	add := func(op admissionv1.Operation, obj, old *unstructured.Unstructured) {
		req := request(op, bob, raw(obj), raw(old))
		data, err := json.Marshal(admissionv1.AdmissionReview{Request: &req.AdmissionRequest})
		if err != nil {
			f.Fatal(err)
		}
		// As the API server sends it: with apiVersion and kind.
		seeds = append(seeds, append([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",`), data[1:]...))
	}
	good, unsafe := read("good.yaml"), read("unsafe.yaml")
	add(admissionv1.Create, good, nil)
	add(admissionv1.Create, unsafe, nil)
	add(admissionv1.Update, read("update/new.yaml"), read("update/old.yaml"))
	add(admissionv1.Update, read("update/approved.yaml"), read("update/old.yaml"))
	add(admissionv1.Delete, nil, read("delete/ephemeral.yaml"))
	add(admissionv1.Create, read("policy.yaml"), nil)
	add(admissionv1.Connect, nil, nil)
	return append(seeds,
		[]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`),
		[]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE","object":{"apiVersion":"v1","data":{"password":"c2VjcmV0"}}}}`),
		[]byte(`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"1","operation":"UPDATE","object":{"kind":"X"}}}`),
		[]byte(`{"request":{"operation":"CREATE","object":`+strings.Repeat("[", 64)+strings.Repeat("]", 64)+`}}`),
		[]byte(""),
	)
}

// withoutPanicRecovery lets a handler's panic through, to the fuzzer.
func withoutPanicRecovery(s reviewServer) reviewServer {
	s.WithRecoverPanic(false)
	return s
}
