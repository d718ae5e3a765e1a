package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	authenticationv1 "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1 "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// metricsAuth is the --metrics-secure filter: each scrape is authenticated
// by a TokenReview and authorized by a SubjectAccessReview, with the
// apiserver library's delegating authenticator and authorizer and the
// settings of controller-runtime's filters.WithAuthenticationAndAuthorization.
// It differs from that filter in its answers: the API server reviewing a
// token and refusing it is a 401, as for no token at all, where the
// filter answers 500; a 500 is left to a review the API server could not
// answer.
func metricsAuth(config *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	authentication, err := authenticationv1.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, err
	}
	authorization, err := authorizationv1.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, err
	}
	// The apiserver library's default retry of a review.
	backoff := wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		Anonymous:                &apiserver.AnonymousAuthConfig{Enabled: false},
		CacheTTL:                 time.Minute,
		TokenAccessReviewClient:  authentication,
		TokenAccessReviewTimeout: 10 * time.Second,
		WebhookRetryBackoff:      &backoff,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("creating the metrics authenticator: %w", err)
	}
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: authorization,
		AllowCacheTTL:             5 * time.Minute,
		DenyCacheTTL:              30 * time.Second,
		WebhookRetryBackoff:       &backoff,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("creating the metrics authorizer: %w", err)
	}
	return func(log logr.Logger, next http.Handler) (http.Handler, error) {
		return authorizedMetrics(authn, authz, log, next), nil
	}, nil
}

// authorizedMetrics serves next to the callers authn authenticates and
// authz allows to get the path: 401 for a caller without a valid token,
// 403 for one not allowed, 500 when the API server could not answer.
func authorizedMetrics(authn authenticator.Request, authz authorizer.Authorizer, log logr.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, ok, err := authn.AuthenticateRequest(r)
		if err != nil && reviewFailed(err) {
			log.Error(err, "Cannot authenticate a metrics request")
			http.Error(w, "cannot authenticate the request", http.StatusInternalServerError)
			return
		}
		if !ok {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		attributes := authorizer.AttributesRecord{User: res.User, Verb: strings.ToLower(r.Method), Path: r.URL.Path}
		decision, _, err := authz.Authorize(r.Context(), attributes)
		if err != nil {
			log.Error(err, "Cannot authorize a metrics request", "user", res.User.GetName())
			http.Error(w, "cannot authorize the request", http.StatusInternalServerError)
			return
		}
		if decision != authorizer.DecisionAllow {
			http.Error(w, fmt.Sprintf("%s may not get %s", res.User.GetName(), r.URL.Path), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// reviewFailed tells whether err is a TokenReview that failed: the API
// server answered with an error status (such as a missing permission to
// create tokenreviews) or could not be reached. Any other error is the
// review's answer that the token is not valid.
func reviewFailed(err error) bool {
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		for _, e := range agg.Errors() {
			if reviewFailed(e) {
				return true
			}
		}
		return false
	}
	var status apierrors.APIStatus
	var urlErr *url.Error
	var netErr net.Error
	return errors.As(err, &status) || errors.As(err, &urlErr) || errors.As(err, &netErr) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
