package webhook

import (
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/crdguard/crdguard/internal/mysqlexample"
)

// TestWebhooksRecoverPanics: a handler that panics (here: no engine holder
// at all) answers 500 instead of killing the request, on both paths.
func TestWebhooksRecoverPanics(t *testing.T) {
	for path, hook := range webhooks(Config{}) {
		t.Run(path, func(t *testing.T) {
			resp := hook.Handle(t.Context(), request(admissionv1.Create, bob, mysqlexample.JSON(t, "unsafe.yaml"), nil))
			if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusInternalServerError {
				t.Fatalf("got %+v, want a 500", resp.AdmissionResponse)
			}
			if resp.UID != "uid-1" {
				t.Errorf("UID = %q, want the request's", resp.UID)
			}
		})
	}
}

// TestWebhooksCRDGuardOptIn: /validate-crd is served only with a guard.
func TestWebhooksCRDGuardOptIn(t *testing.T) {
	if _, ok := webhooks(Config{})[ValidateCRDPath]; ok {
		t.Errorf("%s served without a CRDGuard", ValidateCRDPath)
	}
	hook, ok := webhooks(Config{CRDGuard: guard(storedWidgets())})[ValidateCRDPath]
	if !ok {
		t.Fatalf("%s not served with a CRDGuard", ValidateCRDPath)
	}
	old := widget(t)
	wantDenied(t, hook.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, removeNote(old), old)), map[string]string{noteGone: "field-removed"})
}
