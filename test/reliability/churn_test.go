package reliability

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// The churn: the policy is updated churnUpdates times while churnClients
// send requests. The policy starts at 0 replicas and each update raises
// it by one, up to 100; the object has churnReplicas (the CRD allows at most 9),
// so the verdict flips from allowed to denied early and never back, and
// every denial names the version that decided it.
const (
	churnUpdates  = 100
	churnClients  = 4
	churnReplicas = 5
	churnPolicy   = "churn"
	// churnLabel selects the objects the churn policy applies to, so no
	// other test's verdict depends on it.
	churnLabel = "reliability.crdguard.dev/churn"
)

// churnDenial is the churn policy's message; its number says which
// version of the policy decided.
var churnDenial = regexp.MustCompile(`needs at least (\d+) replicas`)

// sourceTimeout bounds how long a change in the cluster may take to reach
// the webhook's engine, with a wide margin for a loaded machine.
const sourceTimeout = time.Minute

// TestPolicyChurn updates a GuardPolicy 100 times while requests flow:
// none fails, no request sees an older version after a newer one, the
// final version is enforced, and neither an update the API server rejects
// nor a stored version crdguard cannot compile replaces it.
func TestPolicyChurn(t *testing.T) {
	policy := churnGuardPolicy(0)
	if err := cluster.client.Create(t.Context(), policy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.client.Delete(context.Background(), policy); err != nil {
			t.Errorf("deleting the churn policy: %v", err)
		}
	})
	obj := example(t, "good.yaml")
	obj.SetNamespace(shopNamespace)
	obj.SetLabels(map[string]string{churnLabel: "true"})
	if err := unstructured.SetNestedField(obj.Object, int64(churnReplicas), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	body := review("churn", admissionv1.Create, obj, nil)
	c, transport := webhookClient(churnClients)
	defer transport.CloseIdleConnections()
	verdict := func(ctx context.Context) (minimum int, a answer, err error) {
		if a, err = postReview(ctx, c, "/validate", body); err != nil {
			return 0, a, err
		}
		return churnMinimum(a)
	}
	// In force, next to the example policy, and allowing.
	eventually(t, "the churn policy in force", func(ctx context.Context) (bool, string) {
		n, err := scrapeSample(ctx, "crdguard_policies")
		return err == nil && n == 2, fmt.Sprint(n, err)
	})
	if minimum, a, err := verdict(t.Context()); err != nil || minimum != 1 {
		t.Fatalf("before the churn: %s %v, want allowed", a, err)
	}

	// The requests, until the updates are done.
	stop := make(chan struct{})
	var sent atomic.Int64
	var failures sync.Map
	var wg sync.WaitGroup
	for range churnClients {
		wg.Go(func() {
			// What this client saw last: a policy version never goes back.
			last := 1
			for {
				select {
				case <-stop:
					return
				default:
				}
				minimum, a, err := verdict(t.Context())
				sent.Add(1)
				switch {
				case err != nil:
					failures.LoadOrStore("error", fmt.Sprint(err))
				case minimum < last:
					failures.LoadOrStore("older policy after a newer one", fmt.Sprintf("version %d after %d: %s", minimum, last, a))
				default:
					last = minimum
				}
			}
		})
	}
	for n := 1; n <= churnUpdates; n++ {
		if err := setChurnMinimum(t.Context(), n); err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("update %d: %v", n, err)
		}
	}
	close(stop)
	wg.Wait()
	failures.Range(func(kind, first any) bool {
		t.Errorf("%s, the first: %s", kind, first)
		return true
	})
	if sent.Load() < churnClients {
		t.Errorf("only %d requests during the churn", sent.Load())
	}
	t.Logf("%d requests during %d policy updates", sent.Load(), churnUpdates)

	eventually(t, "the final version in force", func(ctx context.Context) (bool, string) {
		minimum, a, err := verdict(ctx)
		return err == nil && minimum == churnUpdates, fmt.Sprint(a, err)
	})

	// The API server's own schema rejects this update: nothing changes.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj, err := getPolicy(t.Context(), churnPolicy)
		if err != nil {
			return err
		}
		_ = unstructured.SetNestedField(obj.Object, "Sometimes", "spec", "enforcement")
		return cluster.client.Update(t.Context(), obj)
	})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `spec.enforcement: Unsupported value: "Sometimes"`) {
		t.Fatalf("an enforcement outside the enum: %v, want the API server's Invalid", err)
	}

	// This one the API server stores (/validate-policy is not registered),
	// but crdguard cannot compile it: the webhook reports it and keeps the
	// last good version.
	if err := setChurnExpression(t.Context(), "object.spec.replicas >=", "never compiles"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "crdguard_policy_invalid for the churn policy", func(ctx context.Context) (bool, string) {
		v, err := scrapeSample(ctx, fmt.Sprintf(`crdguard_policy_invalid{policy=%q}`, churnPolicy))
		return err == nil && v == 1, fmt.Sprint(v, err)
	})
	if minimum, a, err := verdict(t.Context()); err != nil || minimum != churnUpdates {
		t.Errorf("after an invalid version was stored: %s %v, want the denial of version %d", a, err, churnUpdates)
	}
}

// churnMinimum reads which version of the churn policy decided a: the
// least number of replicas its denial names, or 1 for an allow (every
// version up to churnReplicas allows, so an allow is never newer than a
// denial). Anything else is an error.
func churnMinimum(a answer) (int, answer, error) {
	r := a.response()
	switch {
	case a.status != http.StatusOK || r == nil:
		return 0, a, fmt.Errorf("not a review: %s", a)
	case r.Allowed:
		return 1, a, nil
	case a.code() != http.StatusUnprocessableEntity:
		return 0, a, fmt.Errorf("denied with code %d: %s", a.code(), a)
	}
	m := churnDenial.FindStringSubmatch(a.message())
	if m == nil {
		return 0, a, fmt.Errorf("not the churn policy's denial: %s", a)
	}
	n, _ := strconv.Atoi(m[1])
	return n, a, nil
}

// churnGuardPolicy is the churn policy requiring at least minimum replicas.
func churnGuardPolicy(minimum int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crdguard.dev/v1alpha1",
		"kind":       "GuardPolicy",
		"metadata":   map[string]any{"name": churnPolicy},
		"spec": map[string]any{
			"match": map[string]any{
				"resources":      []any{map[string]any{"group": "db.example.io", "kinds": []any{"MySQLCluster"}}},
				"operations":     []any{"CREATE", "UPDATE"},
				"objectSelector": map[string]any{"matchLabels": map[string]any{churnLabel: "true"}},
			},
			"rules": []any{churnRule(minimum)},
		},
	}}
}

func churnRule(minimum int) map[string]any {
	return map[string]any{
		"name": "replicas",
		"cel": map[string]any{
			"expression": fmt.Sprintf("object.spec.replicas >= %d", minimum),
			"message":    fmt.Sprintf("needs at least %d replicas", minimum),
			"fieldPath":  "spec.replicas",
		},
	}
}

// setChurnMinimum updates the stored churn policy to require minimum.
func setChurnMinimum(ctx context.Context, minimum int) error {
	rule := churnRule(minimum)["cel"].(map[string]any)
	return setChurnExpression(ctx, rule["expression"].(string), rule["message"].(string))
}

// setChurnExpression updates the stored churn policy's CEL rule.
func setChurnExpression(ctx context.Context, expression, message string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj, err := getPolicy(ctx, churnPolicy)
		if err != nil {
			return err
		}
		rule := churnRule(0)
		rule["cel"] = map[string]any{"expression": expression, "message": message, "fieldPath": "spec.replicas"}
		if err := unstructured.SetNestedSlice(obj.Object, []any{rule}, "spec", "rules"); err != nil {
			return err
		}
		return cluster.client.Update(ctx, obj)
	})
}

// getPolicy gets a stored GuardPolicy.
func getPolicy(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("crdguard.dev/v1alpha1")
	obj.SetKind("GuardPolicy")
	return obj, cluster.client.Get(ctx, client.ObjectKey{Name: name}, obj)
}

// eventually polls cond until it holds or sourceTimeout passes; cond
// reports what it saw, for the failure message.
func eventually(t *testing.T, what string, cond func(ctx context.Context) (bool, string)) {
	t.Helper()
	localcluster.Eventually(t, sourceTimeout, what, cond)
}

// scrapeSample reads one sample, by its name and labels as the exposition
// format prints them, from the in-process webhook's /metrics.
func scrapeSample(ctx context.Context, series string) (float64, error) {
	body, err := localcluster.ScrapeMetrics(ctx, cluster.metrics)
	if err != nil {
		return 0, err
	}
	v, ok := localcluster.MetricSample(body, series)
	if !ok {
		return 0, fmt.Errorf("no sample %s", series)
	}
	return v, nil
}
