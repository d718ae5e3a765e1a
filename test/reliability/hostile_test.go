package reliability

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// maxReview is the bound on an AdmissionReview body, controller-runtime's
// (admission.maxRequestSize): two objects of at most 3 MiB, as the API
// server's own request limit allows, and 1 MiB for the rest. A body that
// reaches it is answered 413 after reading that much, never decoded.
const maxReview = 7 << 20

// hostileHeapGrowth bounds what the heap keeps after every hostile
// request: none of them may leave anything behind.
const hostileHeapGrowth = 16 << 20

// TestHostileInput sends what the API server never sends: each gets a
// denial naming what is wrong (a review with allowed false and a 4xx
// code, as controller-runtime answers a request it cannot read), or for
// a kind crdguard knows nothing of, an allow; the server keeps serving
// and keeps no memory.
func TestHostileInput(t *testing.T) {
	good := example(t, "good.yaml")
	good.SetNamespace(shopNamespace)
	valid := review("hostile", admissionv1.Create, good, nil)
	gizmo := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "toys.example.io/v1", "kind": "Gizmo",
		"metadata": map[string]any{"name": "g", "namespace": shopNamespace},
		"spec":     map[string]any{"anything": true},
	}}

	tests := []struct {
		name        string
		path        string
		contentType string
		body        []byte
		// code is the review's result code; 0 means allowed.
		code    int32
		message string
	}{{
		name: "malformed JSON",
		body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":`),
		code: http.StatusBadRequest, message: "decoding the AdmissionReview: unexpected end of JSON input",
	}, {
		name: "not JSON at all",
		body: []byte("\x00\xff<xml/>"),
		code: http.StatusBadRequest, message: "decoding the AdmissionReview: invalid character '\\x00' looking for beginning of value",
	}, {
		name: "wrong content type", contentType: "application/yaml",
		body: valid,
		code: http.StatusBadRequest, message: "contentType=application/yaml, expected application/json",
	}, {
		name: "no content type", contentType: "-",
		body: valid,
		code: http.StatusBadRequest, message: "contentType=, expected application/json",
	}, {
		name: "empty body",
		body: nil,
		code: http.StatusBadRequest, message: "request body is empty",
	}, {
		name: "body over the limit",
		body: oversized(valid, maxReview+1),
		code: http.StatusRequestEntityTooLarge, message: "request entity is too large; limit is 7340032 bytes",
	}, {
		name: "JSON nested 10,000 deep",
		body: nested(good, 10000),
		code: http.StatusBadRequest, message: "exceeded max depth",
	}, {
		// Under the decoder's limit it decodes, and the policies have
		// nothing against it (the API server would have pruned the field
		// its schema does not declare before sending the object).
		name: "JSON nested 9,000 deep",
		body: nested(good, 9000),
	}, {
		name: "AdmissionReview without a request",
		body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`),
		code: http.StatusBadRequest, message: "the AdmissionReview has no request (no operation)",
	}, {
		name: "CREATE without object",
		body: review("hostile", admissionv1.Create, nil, good),
		code: http.StatusBadRequest, message: "the admission request has no object",
	}, {
		name: "UPDATE without oldObject",
		body: review("hostile", admissionv1.Update, good, nil),
		code: http.StatusBadRequest, message: "the admission request has no oldObject",
	}, {
		name: "object not a JSON object",
		body: withObject(t, valid, 42),
		code: http.StatusBadRequest, message: "decoding the admission request's object",
	}, {
		// No schema and no policy: crdguard has nothing to say about it.
		name: "unknown kind",
		body: review("hostile", admissionv1.Create, gizmo, nil),
	}, {
		name: "a GuardPolicy that is not one", path: "/validate-policy",
		body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"p","operation":"CREATE",` +
			`"kind":{"group":"crdguard.dev","version":"v1alpha1","kind":"GuardPolicy"},"object":{"apiVersion":"crdguard.dev/v1alpha1","kind":"GuardPolicy","spec":7}}}`),
		code: http.StatusUnprocessableEntity, message: "spec",
	}, {
		name: "mutate without a request", path: "/mutate",
		body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`),
		code: http.StatusBadRequest, message: "the AdmissionReview has no request (no operation)",
	}}

	c, transport := webhookClient(1)
	defer transport.CloseIdleConnections()
	before := heapInUse()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = "/validate"
			}
			contentType := tt.contentType
			switch contentType {
			case "":
				contentType = "application/json"
			case "-":
				contentType = ""
			}
			a, err := post(t.Context(), c, cluster.webhookAddr, path, contentType, bytes.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			r := a.response()
			if a.status != http.StatusOK || r == nil {
				t.Fatalf("got %s, want a review", a)
			}
			if tt.code == 0 {
				if !r.Allowed {
					t.Errorf("got %s, want allowed", a)
				}
				return
			}
			if r.Allowed || a.code() != tt.code || !strings.Contains(a.message(), tt.message) {
				t.Errorf("got %s\nwant denied with code %d and a message containing %q", a, tt.code, tt.message)
			}
		})
	}
	// Still serving, and nothing kept.
	if a, err := postReview(t.Context(), c, "/validate", valid); err != nil || a.response() == nil || !a.response().Allowed {
		t.Errorf("good.yaml after the hostile requests: %v %v, want allowed", a, err)
	}
	if grown := heapInUse() - before; grown > hostileHeapGrowth {
		t.Errorf("the heap grew by %d MiB; want at most %d MiB", grown>>20, hostileHeapGrowth>>20)
	}
}

// oversized pads review with spaces, which JSON allows anywhere between
// tokens, to size bytes: a well-formed review too big to read.
func oversized(review []byte, size int) []byte {
	return append(review[:len(review):len(review)], bytes.Repeat([]byte(" "), size-len(review))...)
}

// nested is a review of obj whose spec holds arrays nested depth deep.
func nested(obj *unstructured.Unstructured, depth int) []byte {
	deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	body := review("hostile", admissionv1.Create, obj, nil)
	return bytes.Replace(body, []byte(`"spec":{`), []byte(`"spec":{"deep":`+deep+`,`), 1)
}

// withObject is body, a review, with object as its request's object.
func withObject(t *testing.T, body []byte, object any) []byte {
	t.Helper()
	var ar map[string]any
	if err := json.Unmarshal(body, &ar); err != nil {
		t.Fatal(err)
	}
	ar["request"].(map[string]any)["object"] = object
	out, err := json.Marshal(ar)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
