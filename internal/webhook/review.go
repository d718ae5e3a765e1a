package webhook

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	kjson "sigs.k8s.io/json"

	"github.com/crdguard/crdguard/pkg/schema"
)

// maxReviewSize bounds an AdmissionReview body as controller-runtime
// does: two objects of at most 3 MiB, as the API server's own request
// limit allows, and 1 MiB for the rest.
const maxReviewSize = 7 << 20

// reviewServer is controller-runtime's admission.Webhook (its Handle:
// panic recovery, the request's logger, a completed response) with a
// ServeHTTP of its own, for two reasons:
//   - The body is decoded once, by an exact fast decoder or the API
//     machinery's (decodeReview).
//     admission.Webhook decodes it through the universal deserializer,
//     which first decodes all of it with encoding/json only to learn its
//     kind: that costs more than evaluating the example GuardPolicy.
//   - A response with code 500 ("crdguard could not evaluate") is sent as
//     an HTTP 500. kube-apiserver takes any well-formed review with
//     allowed=false as a denial, whatever the configuration's
//     failurePolicy says; only a failed call (timeout, TLS error, non-200
//     status) is left to failurePolicy. So failurePolicy: Ignore keeps a
//     cluster writable while crdguard cannot decide, and Fail keeps it
//     closed.
type reviewServer struct {
	*admission.Webhook
	// rawObjects leaves the request's objects as JSON, for a handler that
	// decodes them into a type of its own; otherwise they are decoded as
	// unstructured content with the review, in one pass.
	rawObjects bool
	// budget bounds the bodies read and handled at once; nil bounds none.
	budget *BodyBudget
	// readTimeout bounds reading a body; 0 is bodyReadTimeout.
	readTimeout time.Duration
}

// bodyReadTimeout bounds reading a body. kube-apiserver waits at most 30 s
// for an answer: a body that takes longer comes from no API server, and
// only holds a connection open.
const bodyReadTimeout = 30 * time.Second

// serveReviews serves handler's decisions, refusing reviews without a
// request or with an operation admission does not define. The handler
// gets the objects decoded (decodeObject reads them).
func serveReviews(handler admission.Handler) reviewServer {
	return reviewServer{Webhook: (&admission.Webhook{Handler: requireOperation(handler), LogConstructor: requestLogger}).WithRecoverPanic(true)}
}

// serveRawReviews is serveReviews for a handler that reads the objects'
// JSON itself.
func serveRawReviews(handler admission.Handler) reviewServer {
	s := serveReviews(handler)
	s.rawObjects = true
	return s
}

// reviewVersions are the AdmissionReview versions served; v1beta1 has the
// same fields as v1, and a review is answered in its own version.
var reviewVersions = map[string]bool{
	admissionv1.SchemeGroupVersion.String(): true,
	"admission.k8s.io/v1beta1":              true,
}

// reviewV1 is a v1 AdmissionReview's type: how a review without one is
// read, and how a review that could not be read is answered.
var reviewV1 = metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"}

func (s reviewServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor >= 2 {
		warmStacks.do(func() { s.serve(w, r) })
		return
	}
	s.serve(w, r)
}

// serve reads the review, has it handled and writes the answer.
func (s reviewServer) serve(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// The API server only POSTs reviews; answering anything else with a
	// review would make a probe or a crawler look like a caller.
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "only POST is served", http.StatusMethodNotAllowed)
		return
	}
	// A body late for its pace gets the connection's read deadline
	// (bodyPace); ResponseRecorder has none.
	// The budget's waits end by it too (BodyBudget.read).
	deadline := time.Now().Add(cmp.Or(s.readTimeout, bodyReadTimeout))
	review, release, err := readReview(ctx, w, r, s.rawObjects, s.budget, deadline)
	if errors.Is(err, errBodyBudget) {
		// Not the request's fault: a 503, so failurePolicy decides.
		logf.FromContext(ctx).Error(err, "Cannot read the AdmissionReview")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if errors.Is(err, errFastDecodeMismatch) {
		// crdguard's fault: a 500, so failurePolicy decides.
		logf.FromContext(ctx).Error(err, "Cannot read the AdmissionReview")
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if err != nil {
		logf.FromContext(ctx).Error(BoundError(err), "Cannot read the AdmissionReview")
		code := int32(http.StatusBadRequest)
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			code, err = http.StatusRequestEntityTooLarge, fmt.Errorf("request entity is too large; limit is %d bytes", maxReviewSize)
		}
		writeResponse(ctx, w, reviewV1, admission.Errored(code, err))
		return
	}
	defer release()
	var req admission.Request
	if review.Request != nil {
		req.AdmissionRequest = *review.Request
	}
	writeResponse(ctx, w, review.TypeMeta, s.Handle(ctx, req))
}

// readReview reads the body within maxReviewSize, the budget and its
// pace, by deadline at the latest, and decodes it: JSON, an
// AdmissionReview, with its objects decoded unless rawObjects. release
// gives the body's bytes back to the budget.
func readReview(ctx context.Context, w http.ResponseWriter, r *http.Request, rawObjects bool, budget *BodyBudget, deadline time.Time) (*admissionv1.AdmissionReview, func(), error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil, errors.New("request body is empty")
	}
	defer r.Body.Close()
	// A declared length over the bound is refused unread.
	if r.ContentLength > maxReviewSize {
		return nil, nil, &http.MaxBytesError{Limit: maxReviewSize}
	}
	pace := newBodyPace(r.Body, http.NewResponseController(w).SetReadDeadline, deadline)
	body, release, err := budget.read(ctx, http.MaxBytesReader(w, pace, maxReviewSize), r.ContentLength, clientAddress(r), pace)
	pace.ended(err == nil)
	if err != nil {
		return nil, nil, err
	}
	review, err := parseReview(r, body, rawObjects, schema.VerifiesFastPaths(ctx))
	if err != nil {
		release()
		return nil, nil, err
	}
	return review, release, nil
}

// clientAddress is the host of the request's remote address: what one
// client's bodies share of the budget.
func clientAddress(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// parseReview decodes a body read: JSON, an AdmissionReview. verify
// decodes it with and without the fast path (decodeReview).
func parseReview(r *http.Request, body []byte, rawObjects, verify bool) (*admissionv1.AdmissionReview, error) {
	if contentType := r.Header.Get("Content-Type"); contentType != "application/json" {
		return nil, fmt.Errorf("contentType=%s, expected application/json", contentType)
	}
	review, err := decodeReview(body, rawObjects, verify)
	if errors.Is(err, errFastDecodeMismatch) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("decoding the AdmissionReview: %w", err)
	}
	// Without apiVersion and kind it is read as v1, as controller-runtime
	// reads it.
	if review.APIVersion == "" && review.Kind == "" {
		review.TypeMeta = reviewV1
	}
	if !reviewVersions[review.APIVersion] || review.Kind != "AdmissionReview" {
		return nil, fmt.Errorf("the body is a %q of %q, not an AdmissionReview", bounded(review.Kind), bounded(review.APIVersion))
	}
	return review, nil
}

// decodeReview decodes an AdmissionReview, its objects with it unless
// rawObjects: by fastDecodeReview, or when that leaves the body, by
// sigs.k8s.io/json. A review whose objects do not decode as JSON objects
// is read again with them raw: the handler then reports each as it
// reports any object it cannot decode, naming it. verify decodes with
// both and returns errFastDecodeMismatch when they differ.
func decodeReview(body []byte, rawObjects, verify bool) (*admissionv1.AdmissionReview, error) {
	if !rawObjects {
		fast, fastErr := fastReviewDecoder(body)
		if fastErr == nil && !verify {
			return fast.review(), nil
		}
		decoded := &objectsReview{}
		err := kjson.UnmarshalCaseSensitivePreserveInts(body, decoded)
		if fastErr == nil && (err != nil || !reflect.DeepEqual(fast, decoded)) {
			return nil, errFastDecodeMismatch
		}
		if err == nil {
			return decoded.review(), nil
		}
	}
	review := &admissionv1.AdmissionReview{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, review); err != nil {
		return nil, err
	}
	return review, nil
}

// fastReviewDecoder is fastDecodeReview; tests replace it to see
// verification fail.
var fastReviewDecoder = fastDecodeReview

// errFastDecodeMismatch says that fastDecodeReview and sigs.k8s.io/json
// decoded a review differently: a bug in crdguard, which then answers no
// verdict rather than one that may be wrong.
var errFastDecodeMismatch = errors.New("fast path verification failed: the AdmissionReview decodes differently with and without the fast decoder; please report this bug")

// objectsReview is an AdmissionReview whose objects decode as unstructured
// content in the same pass as the rest: decoding them from a RawExtension
// afterwards went over their JSON twice more, a fifth of the cost of
// reading a review.
type objectsReview struct {
	metav1.TypeMeta `json:",inline"`
	Request         *objectsRequest `json:"request,omitempty"`
}

type objectsRequest struct {
	admissionv1.AdmissionRequest
	// These hide the AdmissionRequest's RawExtensions.
	Object    map[string]any `json:"object,omitempty"`
	OldObject map[string]any `json:"oldObject,omitempty"`
}

// review is r as an AdmissionReview, each object in its RawExtension's
// Object.
func (r *objectsReview) review() *admissionv1.AdmissionReview {
	out := &admissionv1.AdmissionReview{TypeMeta: r.TypeMeta}
	if r.Request != nil {
		out.Request = &r.Request.AdmissionRequest
		out.Request.Object = asRawExtension(r.Request.Object)
		out.Request.OldObject = asRawExtension(r.Request.OldObject)
	}
	return out
}

// asRawExtension holds decoded content as a RawExtension's Object, where
// decodeObject reads it.
func asRawExtension(content map[string]any) runtime.RawExtension {
	if content == nil {
		return runtime.RawExtension{}
	}
	return runtime.RawExtension{Object: &unstructured.Unstructured{Object: content}}
}

// writeResponse sends resp in a review of the given version, or as an HTTP
// 500 when resp is one.
func writeResponse(ctx context.Context, w http.ResponseWriter, version metav1.TypeMeta, resp admission.Response) {
	if resp.Result != nil && resp.Result.Code == http.StatusInternalServerError {
		http.Error(w, resp.Result.Message, http.StatusInternalServerError)
		return
	}
	body, err := encodeReview(ctx, version, &resp.AdmissionResponse)
	if errors.Is(err, errFastEncodeMismatch) {
		logf.FromContext(ctx).Error(err, "Cannot write the admission response")
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	// The answer sets no header: net/http's HTTP/2 server writes the
	// headers of a handler that set one on their own, before the body, and
	// holds the handler meanwhile. The API server reads the review whatever
	// its sniffed Content-Type, as it reads controller-runtime's.
	if err == nil {
		_, err = w.Write(body)
	}
	if err != nil {
		// The review is well formed; only the connection can have failed.
		logf.FromContext(ctx).Error(err, "Cannot write the admission response")
	}
}

// encodeReview is resp in a review of the given version as encoding/json
// writes it, by appendAllowedReview when resp is a plain allow. Under
// fast path verification it encodes with both and returns
// errFastEncodeMismatch when they differ.
func encodeReview(ctx context.Context, version metav1.TypeMeta, resp *admissionv1.AdmissionResponse) ([]byte, error) {
	fast, ok := fastReviewEncoder(make([]byte, 0, 192), version, resp)
	verify := schema.VerifiesFastPaths(ctx)
	if ok && !verify {
		return fast, nil
	}
	var encoded bytes.Buffer
	if err := json.NewEncoder(&encoded).Encode(admissionv1.AdmissionReview{TypeMeta: version, Response: resp}); err != nil {
		return nil, err
	}
	if ok && !bytes.Equal(fast, encoded.Bytes()) {
		return nil, errFastEncodeMismatch
	}
	return encoded.Bytes(), nil
}

// fastReviewEncoder is appendAllowedReview; tests replace it to see
// verification fail.
var fastReviewEncoder = appendAllowedReview

// errFastEncodeMismatch says that appendAllowedReview and encoding/json
// wrote a review differently: a bug in crdguard, which then answers no
// verdict rather than one that may be wrong.
var errFastEncodeMismatch = errors.New("fast path verification failed: the admission response encodes differently with and without the fast encoder; please report this bug")
