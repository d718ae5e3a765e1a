package webhook

import (
	"net/http"

	"github.com/crdguard/crdguard/pkg/schema"
)

// verifiesFastPaths makes every request validate objects with and without
// crdguard's fast paths when verify is set (see
// schema.WithFastPathVerification). A difference fails closed, as any
// evaluation error: the CRD guard denies a replay it cannot finish, the
// other handlers answer a 500 for failurePolicy; each logs it.
func verifiesFastPaths(verify bool, next http.Handler) http.Handler {
	if !verify {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(schema.WithFastPathVerification(r.Context())))
	})
}
