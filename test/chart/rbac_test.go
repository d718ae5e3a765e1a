package chart

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// serviceAccountUser is the chart's ServiceAccount for the default release,
// as the API server names it.
const serviceAccountUser = "system:serviceaccount:" + releaseNamespace + ":" + defaultRelease

// access is one `kubectl auth can-i` question: args are its verb, resource
// and flags.
type access []string

func (a access) String() string { return strings.Join(a, " ") }

// readsSources is what crdguard-webhook reads in every configuration:
// GuardPolicies and CRDs from informers (get, list, watch), and namespace
// labels for namespaceSelectors from a metadata informer and, for a
// namespace the cache has not seen yet, a live get.
var readsSources = []access{
	{"get", "guardpolicies.crdguard.dev"}, {"list", "guardpolicies.crdguard.dev"}, {"watch", "guardpolicies.crdguard.dev"},
	{"get", "customresourcedefinitions.apiextensions.k8s.io"}, {"list", "customresourcedefinitions.apiextensions.k8s.io"}, {"watch", "customresourcedefinitions.apiextensions.k8s.io"},
	{"get", "namespaces"}, {"list", "namespaces"}, {"watch", "namespaces"},
}

// neverNeeded is what the webhook must not be able to do in any
// configuration: it only reads, and never Secrets or Pods.
var neverNeeded = []access{
	{"*", "*"},
	{"get", "secrets", "-n", releaseNamespace}, {"list", "secrets", "--all-namespaces"}, {"watch", "secrets", "--all-namespaces"},
	{"get", "pods", "-n", releaseNamespace}, {"list", "pods", "--all-namespaces"},
	{"create", "guardpolicies.crdguard.dev"}, {"update", "guardpolicies.crdguard.dev"}, {"patch", "guardpolicies.crdguard.dev"}, {"delete", "guardpolicies.crdguard.dev"},
	{"create", "customresourcedefinitions.apiextensions.k8s.io"}, {"update", "customresourcedefinitions.apiextensions.k8s.io"}, {"delete", "customresourcedefinitions.apiextensions.k8s.io"},
	{"update", "namespaces"}, {"delete", "namespaces"},
	{"update", "validatingwebhookconfigurations.admissionregistration.k8s.io"},
	{"create", "events", "-n", releaseNamespace},
	{"impersonate", "users"}, {"bind", "clusterroles.rbac.authorization.k8s.io"}, {"escalate", "clusterroles.rbac.authorization.k8s.io"},
	{"list", "issuers.cert-manager.io", "--all-namespaces"},
}

// TestRBAC creates the chart's ServiceAccount, ClusterRole and
// ClusterRoleBinding on the API server and asks it, with the real kubectl
// auth can-i as the ServiceAccount, for everything the webhook needs and
// for what it must not have. The deployment test runs the webhook as this
// ServiceAccount, proving the grants suffice.
func TestRBAC(t *testing.T) {
	defaults := renderChart(t, defaultRelease)
	t.Cleanup(func() { deleteRendered(t, defaults, rbacKinds...) })
	for _, tc := range []struct {
		name     string
		set      []string
		yes, no  []access
		newGrant access // polled for until the API server's RBAC cache has the update
	}{{
		name: "defaults",
		yes:  readsSources,
		no: append([]access{
			// The CRD upgrade guard is off: no stored objects are read.
			{"list", "certificates.cert-manager.io", "--all-namespaces"},
			{"list", "servicemonitors.monitoring.coreos.com", "--all-namespaces"},
		}, neverNeeded...),
		newGrant: access{"list", "guardpolicies.crdguard.dev"},
	}, {
		// /validate-crd replays the stored objects of each guarded CRD:
		// list on those, by name and by extraListRules, and nothing more.
		name: "guardCRDs",
		set: []string{
			"guardCRDs.enabled=true", "guardCRDs.names={certificates.cert-manager.io}",
			"guardCRDs.extraListRules[0].apiGroups={monitoring.coreos.com}",
			"guardCRDs.extraListRules[0].resources={servicemonitors}",
		},
		yes: append([]access{
			{"list", "certificates.cert-manager.io", "--all-namespaces"},
			{"list", "servicemonitors.monitoring.coreos.com", "--all-namespaces"},
		}, readsSources...),
		no: append([]access{
			{"get", "certificates.cert-manager.io", "-n", releaseNamespace},
			{"watch", "certificates.cert-manager.io", "--all-namespaces"},
			{"delete", "certificates.cert-manager.io", "-n", releaseNamespace},
			{"update", "servicemonitors.monitoring.coreos.com", "-n", releaseNamespace},
		}, neverNeeded...),
		newGrant: access{"list", "certificates.cert-manager.io", "--all-namespaces"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			applyRendered(t, renderChart(t, defaultRelease, tc.set...), rbacKinds...)
			waitAllowed(t, tc.newGrant)
			checkAccess(t, "the webhook needs it", tc.yes, tc.no)
		})
	}
}

// canI asks the API server whether the chart's ServiceAccount may do a.
// kubectl exits 0 with "yes", 1 with "no"; anything else is an error.
func canI(ctx context.Context, a access) (allowed bool, answer string, err error) {
	args := append([]string{"auth", "can-i", "--as=" + serviceAccountUser}, a...)
	cmd := kubectl(ctx, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	answer = strings.TrimSpace(string(out))
	var exit *exec.ExitError
	switch {
	case err == nil && answer == "yes":
		return true, answer, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1 && answer == "no":
		return false, answer, nil
	}
	return false, answer, fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, stderr.String())
}

// waitAllowed waits until the ServiceAccount may do a: the API server's
// RBAC cache takes a moment to see the grants just applied.
func waitAllowed(t *testing.T, a access) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		allowed, _, err := canI(ctx, a)
		return allowed, err
	}); err != nil {
		t.Fatalf("%s never allowed %s: %v", serviceAccountUser, a, err)
	}
}

// checkAccess asks whether the ServiceAccount may do each of yes, which
// it needs (needs says who: "the audit needs it"), and each of no, which
// it must not.
func checkAccess(t *testing.T, needs string, yes, no []access) {
	t.Helper()
	for _, a := range yes {
		if allowed, out, err := canI(t.Context(), a); err != nil || !allowed {
			t.Errorf("kubectl auth can-i %s --as=%s: %q, %v; %s", a, serviceAccountUser, out, err, needs)
		}
	}
	for _, a := range no {
		if allowed, out, err := canI(t.Context(), a); err != nil || allowed {
			t.Errorf("kubectl auth can-i %s --as=%s: %q, %v; want no", a, serviceAccountUser, out, err)
		}
	}
}

// rbacKinds are the objects that make the webhook's identity and grants.
var rbacKinds = []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding"}

// applyRendered creates or updates the rendered objects of the kinds.
func applyRendered(t *testing.T, r *rendered, kinds ...string) {
	t.Helper()
	cmd := kubectl(t.Context(), "apply", "-f", "-")
	cmd.Stdin = strings.NewReader(r.documents(t, kinds...))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply of %v: %v\n%s", kinds, err, out)
	}
}

// deleteRendered deletes them again.
func deleteRendered(t *testing.T, r *rendered, kinds ...string) {
	t.Helper()
	cmd := kubectl(context.Background(), "delete", "--ignore-not-found", "-f", "-")
	cmd.Stdin = strings.NewReader(r.documents(t, kinds...))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("kubectl delete of %v: %v\n%s", kinds, err, out)
	}
}

// documents is the rendered objects of the kinds, as a YAML stream.
func (r *rendered) documents(t *testing.T, kinds ...string) string {
	t.Helper()
	var docs []string
	for _, kind := range kinds {
		objs := r.byKind(kind)
		if len(objs) == 0 {
			t.Fatalf("no %s rendered", kind)
		}
		for _, o := range objs {
			b, err := o.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(b))
		}
	}
	return strings.Join(docs, "\n---\n")
}
