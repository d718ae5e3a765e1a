package reliability

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// TestSecureMetrics: with --metrics-secure, /metrics is HTTPS for callers
// the API server authenticates and authorizes: no token and a token the
// API server refuses are a 401, a ServiceAccount without get on /metrics
// a 403, one with it the metrics.
func TestSecureMetrics(t *testing.T) {
	ports, err := localcluster.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
	startWebhook(t, "--metrics-secure", "--metrics-bind-address", addr)

	ctx := t.Context()
	// Two ServiceAccounts: the scraper may get /metrics, the stranger not.
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard-metrics-reader-test"},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard-metrics-reader-test"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "scraper", Namespace: shopNamespace}},
	}
	tokens := map[string]string{}
	for _, name := range []string{"scraper", "stranger"} {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: shopNamespace}}
		if err := cluster.client.Create(ctx, sa); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cluster.client.Delete(context.Background(), sa) })
		tr := &authenticationv1.TokenRequest{}
		if err := cluster.client.SubResource("token").Create(ctx, sa, tr); err != nil {
			t.Fatalf("requesting a token for %s: %v", name, err)
		}
		tokens[name] = tr.Status.Token
	}
	for _, obj := range []client.Object{role, binding} {
		if err := cluster.client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cluster.client.Delete(context.Background(), obj) })
	}

	// The self-signed certificate of the metrics server, as the chart's
	// ServiceMonitor accepts it.
	httpClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the test's own server
	defer httpClient.CloseIdleConnections()
	scrape := func(token string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	// The metrics server starts alongside the webhook's.
	eventually(t, "no token refused", func(context.Context) (bool, string) {
		code, body := scrape("")
		return code == http.StatusUnauthorized, strconv.Itoa(code) + " " + body
	})
	if code, body := scrape("not-a-token"); code != http.StatusUnauthorized {
		t.Errorf("a token the API server refuses: HTTP %d %q, want 401", code, body)
	}
	if code, _ := scrape(tokens["stranger"]); code != http.StatusForbidden {
		t.Errorf("a ServiceAccount without get on /metrics: HTTP %d, want 403", code)
	}
	code, body := scrape(tokens["scraper"])
	if code != http.StatusOK || !strings.Contains(body, "crdguard_policies 1") {
		t.Errorf("the scraper: HTTP %d, %.300q; want the metrics", code, body)
	}
}
