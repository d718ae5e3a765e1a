package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TestAppendAllowedReview checks that the fast encoder writes a plain
// allow byte for byte as encoding/json does, and leaves every other
// answer to it.
func TestAppendAllowedReview(t *testing.T) {
	allowed := func(uid string) admissionv1.AdmissionResponse {
		resp := admission.Allowed("")
		resp.UID = "705ab4f5-6393-11e8-b7cc-42010a800002"
		if uid != "" {
			resp.UID = types.UID("uid-" + uid)
		}
		return resp.AdmissionResponse
	}
	with := func(change func(*admissionv1.AdmissionResponse)) admissionv1.AdmissionResponse {
		resp := allowed("")
		change(&resp)
		return resp
	}
	v1beta1 := metav1.TypeMeta{APIVersion: "admission.k8s.io/v1beta1", Kind: "AdmissionReview"}
	for _, tc := range []struct {
		name    string
		version metav1.TypeMeta
		resp    admissionv1.AdmissionResponse
		fast    bool
	}{
		{"an allow", reviewV1, allowed(""), true},
		{"an allow in v1beta1", v1beta1, allowed(""), true},
		{"an allow in no version", metav1.TypeMeta{}, allowed(""), true},
		{"an allow without a uid", reviewV1, with(func(r *admissionv1.AdmissionResponse) { r.UID = "" }), true},
		{"empty warnings, annotations and patch", reviewV1, with(func(r *admissionv1.AdmissionResponse) {
			r.Warnings, r.AuditAnnotations, r.Patch = []string{}, map[string]string{}, []byte{}
		}), true},
		{"a uid with printable ASCII", reviewV1, allowed(" !#$%'()*+,-./09:;=?@AZ[]^_`az{|}~"), true},
		{"a uid with a quote", reviewV1, allowed(`"`), false},
		{"a uid with a backslash", reviewV1, allowed(`\`), false},
		{"a uid with HTML", reviewV1, allowed("<&>"), false},
		{"a uid with a control character", reviewV1, allowed("\t"), false},
		{"a uid with DEL", reviewV1, allowed("\x7f"), false},
		{"a uid with a line separator", reviewV1, allowed("\u2028"), false},
		{"a uid with non-ASCII", reviewV1, allowed("é"), false},
		{"a uid with invalid UTF-8", reviewV1, allowed("\xff"), false},
		{"a version with HTML", metav1.TypeMeta{APIVersion: "a<b", Kind: "AdmissionReview"}, allowed(""), false},
		{"a kind with a quote", metav1.TypeMeta{APIVersion: "v1", Kind: `"`}, allowed(""), false},
		{"a denial", reviewV1, with(func(r *admissionv1.AdmissionResponse) { r.Allowed = false }), false},
		{"an allow with a message", reviewV1, with(func(r *admissionv1.AdmissionResponse) { r.Result.Message = "ok" }), false},
		{"an allow with a reason", reviewV1, with(func(r *admissionv1.AdmissionResponse) { r.Result.Reason = metav1.StatusReasonForbidden }), false},
		{"an allow with another code", reviewV1, with(func(r *admissionv1.AdmissionResponse) { r.Result.Code = 201 }), false},
		{"an allow without a status", reviewV1, with(func(r *admissionv1.AdmissionResponse) { r.Result = nil }), false},
		{"an allow with details", reviewV1, with(func(r *admissionv1.AdmissionResponse) { r.Result.Details = &metav1.StatusDetails{} }), false},
		{"an allow with a warning", reviewV1, with(func(r *admissionv1.AdmissionResponse) { r.Warnings = []string{"w"} }), false},
		{"an allow with an audit annotation", reviewV1, with(func(r *admissionv1.AdmissionResponse) { r.AuditAnnotations = map[string]string{"a": "b"} }), false},
		{"an allow with a patch", reviewV1, with(func(r *admissionv1.AdmissionResponse) {
			r.Patch, r.PatchType = []byte(`[]`), ptr.To(admissionv1.PatchTypeJSONPatch)
		}), false},
		{"an allow with a patch type", reviewV1, with(func(r *admissionv1.AdmissionResponse) { r.PatchType = ptr.To(admissionv1.PatchTypeJSONPatch) }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := appendAllowedReview([]byte("prefix"), tc.version, &tc.resp)
			if ok != tc.fast {
				t.Fatalf("encoded by the fast path: %v, want %v", ok, tc.fast)
			}
			if !ok {
				if string(got) != "prefix" {
					t.Fatalf("left to encoding/json, but appended %q", got)
				}
				return
			}
			var want bytes.Buffer
			want.WriteString("prefix")
			if err := json.NewEncoder(&want).Encode(admissionv1.AdmissionReview{TypeMeta: tc.version, Response: &tc.resp}); err != nil {
				t.Fatal(err)
			}
			if string(got) != want.String() {
				t.Fatalf("fast encoder wrote\n%s\nencoding/json\n%s", got, want.String())
			}
		})
	}
}

// TestAdmissionResponseMembers fails when the types appendAllowedReview
// writes gain a member, which it would leave out: read the new member
// there, then update the list here.
func TestAdmissionResponseMembers(t *testing.T) {
	members := func(v any) []string {
		var names []string
		for field := range reflect.TypeOf(v).Fields() {
			names = append(names, field.Name+" "+field.Tag.Get("json"))
		}
		return names
	}
	for _, tc := range []struct {
		v    any
		want []string
	}{
		{admissionv1.AdmissionReview{}, []string{"TypeMeta ", "Request request,omitempty", "Response response,omitempty"}},
		{metav1.TypeMeta{}, []string{"Kind kind,omitempty", "APIVersion apiVersion,omitempty"}},
		{admissionv1.AdmissionResponse{}, []string{
			"UID uid", "Allowed allowed", "Result status,omitempty", "Patch patch,omitempty", "PatchType patchType,omitempty",
			"AuditAnnotations auditAnnotations,omitempty", "Warnings warnings,omitempty",
		}},
		{metav1.Status{}, []string{
			"TypeMeta ", "ListMeta metadata,omitempty", "Status status,omitempty", "Message message,omitempty",
			"Reason reason,omitempty", "Details details,omitempty", "Code code,omitempty",
		}},
		{metav1.ListMeta{}, []string{
			"SelfLink selfLink,omitempty", "ResourceVersion resourceVersion,omitempty", "Continue continue,omitempty",
			"RemainingItemCount remainingItemCount,omitempty", "ShardInfo shardInfo,omitempty",
		}},
	} {
		if got := members(tc.v); !slices.Equal(got, tc.want) {
			t.Errorf("%T has members %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestVerifyFastEncode checks that --verify-fast-paths answers a 500 when
// the fast encoder and encoding/json disagree, and the same answer as
// without it when they agree.
func TestVerifyFastEncode(t *testing.T) {
	review := exampleReview(t)
	serve := func(verify bool) *httptest.ResponseRecorder {
		hook := verifiesFastPaths(verify, webhooks(Config{Engines: engines(t)})[ValidatePath])
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, ValidatePath, bytes.NewReader(review))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		hook.ServeHTTP(rec, req)
		return rec
	}
	fast, verified := serve(false), serve(true)
	if fast.Code != http.StatusOK || verified.Code != http.StatusOK || fast.Body.String() != verified.Body.String() ||
		!strings.Contains(fast.Body.String(), `"allowed":true`) {
		t.Fatalf("agreeing encoders: HTTP %d %s, verified HTTP %d %s, want the same allow", fast.Code, fast.Body, verified.Code, verified.Body)
	}
	t.Cleanup(func() { fastReviewEncoder = appendAllowedReview })
	fastReviewEncoder = func(b []byte, version metav1.TypeMeta, resp *admissionv1.AdmissionResponse) ([]byte, bool) {
		b, ok := appendAllowedReview(b, version, resp)
		return bytes.Replace(b, []byte(`"code":200`), []byte(`"code":201`), 1), ok
	}
	rec := serve(true)
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), errFastEncodeMismatch.Error()) {
		t.Fatalf("disagreeing encoders: HTTP %d %s, want a 500 saying %q", rec.Code, rec.Body, errFastEncodeMismatch)
	}
}
