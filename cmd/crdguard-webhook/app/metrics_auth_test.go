package app

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// TestAuthorizedMetrics: each answer of the reviews gives its own code.
// The errors are the delegating authenticator's: a token the TokenReview
// refused, with the review's message, inside the union's aggregate.
func TestAuthorizedMetrics(t *testing.T) {
	scraper := &authenticator.Response{User: &user.DefaultInfo{Name: "system:serviceaccount:monitoring:prometheus"}}
	tests := []struct {
		name   string
		authn  authenticator.RequestFunc
		authz  authorizer.AuthorizerFunc
		status int
	}{{
		name:   "no token",
		authn:  func(*http.Request) (*authenticator.Response, bool, error) { return nil, false, nil },
		status: http.StatusUnauthorized,
	}, {
		name: "a token the API server refused",
		authn: func(*http.Request) (*authenticator.Response, bool, error) {
			return nil, false, utilerrors.NewAggregate([]error{errors.New("[invalid bearer token, square/go-jose: error in cryptographic primitive]")})
		},
		status: http.StatusUnauthorized,
	}, {
		name: "no permission to create tokenreviews",
		authn: func(*http.Request) (*authenticator.Response, bool, error) {
			return nil, false, utilerrors.NewAggregate([]error{apierrors.NewForbidden(schema.GroupResource{Group: "authentication.k8s.io", Resource: "tokenreviews"}, "", errors.New("no"))})
		},
		status: http.StatusInternalServerError,
	}, {
		name: "the API server unreachable",
		authn: func(*http.Request) (*authenticator.Response, bool, error) {
			return nil, false, utilerrors.NewAggregate([]error{&url.Error{Op: "Post", URL: "https://10.0.0.1", Err: errors.New("connection refused")}})
		},
		status: http.StatusInternalServerError,
	}, {
		name:  "not allowed",
		authn: func(*http.Request) (*authenticator.Response, bool, error) { return scraper, true, nil },
		authz: func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
			return authorizer.DecisionNoOpinion, "", nil
		},
		status: http.StatusForbidden,
	}, {
		name:  "the SubjectAccessReview failed",
		authn: func(*http.Request) (*authenticator.Response, bool, error) { return scraper, true, nil },
		authz: func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
			return authorizer.DecisionNoOpinion, "", errors.New("the server is currently unable to handle the request")
		},
		status: http.StatusInternalServerError,
	}, {
		name:  "allowed",
		authn: func(*http.Request) (*authenticator.Response, bool, error) { return scraper, true, nil },
		authz: func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
			if a.GetVerb() != "get" || a.GetPath() != "/metrics" {
				return authorizer.DecisionDeny, "", nil
			}
			return authorizer.DecisionAllow, "", nil
		},
		status: http.StatusTeapot,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
			rec := httptest.NewRecorder()
			authorizedMetrics(tt.authn, tt.authz, logr.Discard(), next).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			if rec.Code != tt.status {
				t.Errorf("HTTP %d %q, want %d", rec.Code, rec.Body, tt.status)
			}
		})
	}
}
