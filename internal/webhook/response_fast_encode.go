package webhook

import (
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// allowedStatus is the status of admission.Allowed(""), the answer to
// most reviews.
var allowedStatus = metav1.Status{Code: http.StatusOK}

// appendAllowedReview appends what encoding/json's Encoder writes for an
// AdmissionReview of version answering resp, when resp is a plain allow:
// allowed, the status of admission.Allowed(""), no patch, warning or
// audit annotation, and strings encoding/json writes as they are. ok is
// false for any other review, which is left to encoding/json.
// TestAppendAllowedReview compares the two.
func appendAllowedReview(b []byte, version metav1.TypeMeta, resp *admissionv1.AdmissionResponse) (_ []byte, ok bool) {
	// Every member of AdmissionResponse (TestAdmissionResponseMembers
	// fails when one is added), with encoding/json's omitempty.
	if !resp.Allowed || resp.Result == nil || *resp.Result != allowedStatus ||
		len(resp.Patch) > 0 || resp.PatchType != nil || len(resp.AuditAnnotations) > 0 || len(resp.Warnings) > 0 ||
		!verbatim(version.Kind) || !verbatim(version.APIVersion) || !verbatim(string(resp.UID)) {
		return b, false
	}
	b = append(b, '{')
	if version.Kind != "" {
		b = append(append(append(b, `"kind":"`...), version.Kind...), `",`...)
	}
	if version.APIVersion != "" {
		b = append(append(append(b, `"apiVersion":"`...), version.APIVersion...), `",`...)
	}
	b = append(append(b, `"response":{"uid":"`...), resp.UID...)
	return append(b, `","allowed":true,"status":{"metadata":{},"code":200}}}`+"\n"...), true
}

// verbatim tells whether encoding/json writes s as it is between quotes:
// printable ASCII other than the quote, the backslash and the characters
// it escapes for HTML.
func verbatim(s string) bool {
	for i := range len(s) {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}
