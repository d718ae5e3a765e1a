package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// readExample reads examples/mysql/name, a single object.
func readExample(name string) (*unstructured.Unstructured, error) {
	return localcluster.ReadObject(filepath.Join(cluster.examples, name), "")
}

// example is readExample for a test: a file that cannot be read fails it.
func example(t testing.TB, name string) *unstructured.Unstructured {
	t.Helper()
	obj, err := readExample(name)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// review is an AdmissionReview v1 for obj as the API server sends it; old
// is the stored object of an UPDATE or DELETE.
func review(uid string, op admissionv1.Operation, obj, old *unstructured.Unstructured) []byte {
	subject := obj
	if subject == nil {
		subject = old
	}
	gvk := subject.GroupVersionKind()
	kind := metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
	req := &admissionv1.AdmissionRequest{
		UID:         types.UID(uid),
		Kind:        kind,
		RequestKind: &kind,
		Resource:    metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: "mysqlclusters"},
		Name:        subject.GetName(),
		Namespace:   subject.GetNamespace(),
		Operation:   op,
		UserInfo:    authenticationv1.UserInfo{Username: "bob", Groups: []string{"developers", "system:authenticated"}},
	}
	if obj != nil {
		req.Object = runtime.RawExtension{Object: obj}
	}
	if old != nil {
		req.OldObject = runtime.RawExtension{Object: old}
	}
	ar := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	}
	body, err := json.Marshal(ar)
	if err != nil {
		panic(err) // unstructured objects always marshal
	}
	return body
}

// answer is what the webhook answered over HTTP.
type answer struct {
	status int    // HTTP status
	body   []byte // the raw body
	// review is the decoded AdmissionReview when status is 200.
	review *admissionv1.AdmissionReview
}

// response is the review's response; nil when there was none.
func (a answer) response() *admissionv1.AdmissionResponse {
	if a.review == nil {
		return nil
	}
	return a.review.Response
}

// code is the response's result code, 0 without one.
func (a answer) code() int32 {
	if r := a.response(); r != nil && r.Result != nil {
		return r.Result.Code
	}
	return 0
}

// message is the response's result message.
func (a answer) message() string {
	if r := a.response(); r != nil && r.Result != nil {
		return r.Result.Message
	}
	return ""
}

func (a answer) String() string {
	return fmt.Sprintf("HTTP %d %.400s", a.status, a.body)
}

// post sends body to the webhook at addr (host:port) and path with
// contentType, and reads the answer.
func post(ctx context.Context, c *http.Client, addr, path, contentType string, body io.Reader) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+addr+path, body)
	if err != nil {
		return answer{}, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return do(c, req)
}

// do sends req and reads the answer.
func do(c *http.Client, req *http.Request) (answer, error) {
	resp, err := c.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode}
	if a.body, err = io.ReadAll(resp.Body); err != nil {
		return a, err
	}
	if a.status == http.StatusOK {
		a.review = &admissionv1.AdmissionReview{}
		if err := json.Unmarshal(a.body, a.review); err != nil {
			return a, fmt.Errorf("not an AdmissionReview: %w: %s", err, a)
		}
	}
	return a, nil
}

// postReview sends an AdmissionReview to the in-process webhook's path.
func postReview(ctx context.Context, c *http.Client, path string, body []byte) (answer, error) {
	return post(ctx, c, cluster.webhookAddr, path, "application/json", bytes.NewReader(body))
}

// webhookClient is an HTTPS client of the webhooks over keep-alive
// connections, at most conns of them.
func webhookClient(conns int) (*http.Client, *http.Transport) {
	transport := &http.Transport{
		TLSClientConfig:     trustingClientTLS(),
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     time.Minute,
	}
	return &http.Client{Transport: transport}, transport
}
