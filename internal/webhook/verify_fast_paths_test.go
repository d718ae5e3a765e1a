package webhook

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/crdguard/crdguard/pkg/schema"
)

func TestVerifiesFastPaths(t *testing.T) {
	for _, verify := range []bool{false, true} {
		var got bool
		handler := verifiesFastPaths(verify, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			got = schema.VerifiesFastPaths(r.Context())
		}))
		handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, ValidatePath, nil))
		if got != verify {
			t.Errorf("verify %v: the handler's context verifies fast paths = %v", verify, got)
		}
	}
}
