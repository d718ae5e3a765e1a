package reliability

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// restartLabel selects the objects of the policy created after the
// restart.
const restartLabel = "reliability.crdguard.dev/restart"

// TestAPIServerRestart stops kube-apiserver (etcd keeps running) and
// starts it again while the webhook runs: meanwhile the webhook serves
// with the policies it has, afterwards the API server calls it again, and
// its informers reconnect, so a GuardPolicy created after the restart is
// enforced, all without restarting the webhook.
func TestAPIServerRestart(t *testing.T) {
	if err := dryRunCreate(t.Context(), "unsafe.yaml"); !isWebhookDenial(err) {
		t.Fatalf("before the restart, unsafe.yaml: %v, want the webhook's denial", err)
	}
	unsafe := example(t, "unsafe.yaml")
	c, transport := webhookClient(1)
	defer transport.CloseIdleConnections()

	apiServer := cluster.env.ControlPlane.GetAPIServer()
	if err := apiServer.Stop(); err != nil {
		t.Fatalf("stopping kube-apiserver: %v", err)
	}
	// Whatever fails below, the other tests need the API server.
	started := false
	t.Cleanup(func() {
		if !started {
			if err := apiServer.Start(); err != nil {
				t.Errorf("starting kube-apiserver again: %v", err)
			}
		}
	})
	a, err := postReview(t.Context(), c, "/validate", review("down", admissionv1.Create, unsafe, nil))
	if err != nil || a.code() != http.StatusUnprocessableEntity {
		t.Errorf("unsafe.yaml while the API server is down: %v %v, want the policy's denial", a, err)
	}
	// The lost watch shows: the policies' staleness grows.
	eventually(t, "the staleness metric above 0", func(ctx context.Context) (bool, string) {
		v, err := scrapeSample(ctx, "crdguard_source_staleness_seconds")
		return err == nil && v > 0, fmt.Sprint(v, err)
	})
	// As long as a real outage: the reflectors' backoff grows past it.
	time.Sleep(20 * time.Second)
	if err := apiServer.Start(); err != nil {
		t.Fatalf("starting kube-apiserver again: %v", err)
	}
	started = true

	eventually(t, "admission through the restarted API server", func(ctx context.Context) (bool, string) {
		err := dryRunCreate(ctx, "unsafe.yaml")
		if !isWebhookDenial(err) {
			return false, fmt.Sprintf("unsafe.yaml: %v", err)
		}
		err = dryRunCreate(ctx, "good.yaml")
		return err == nil, fmt.Sprintf("good.yaml: %v", err)
	})

	policy := labelPolicy("after-restart", restartLabel, "created after the API server restarted")
	created := time.Now()
	if err := cluster.client.Create(t.Context(), policy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.client.Delete(context.Background(), policy); err != nil {
			t.Errorf("deleting %s: %v", policy.GetName(), err)
		}
	})
	good := example(t, "good.yaml")
	good.SetNamespace(shopNamespace)
	good.SetLabels(map[string]string{restartLabel: "true"})
	eventually(t, "the policy created after the restart enforced", func(ctx context.Context) (bool, string) {
		err := cluster.client.Create(ctx, good.DeepCopy(), client.DryRunAll)
		return isWebhookDenial(err) && strings.Contains(err.Error(), "created after the API server restarted"), fmt.Sprint(err)
	})
	// Read live while the informers back off: enforced within a few
	// intervals of the live read, not the minute their backoff took.
	took := time.Since(created)
	t.Logf("the policy created after the restart was enforced after %s", took.Round(100*time.Millisecond))
	if took > maxRecovery {
		t.Errorf("the policy created after the restart was enforced after %s, want within %s", took.Round(time.Second), maxRecovery)
	}
	localcluster.Eventually(t, watchRecovery, "the staleness metric back to 0", func(ctx context.Context) (bool, string) {
		v, err := scrapeSample(ctx, "crdguard_source_staleness_seconds")
		return err == nil && v == 0, fmt.Sprint(v, err)
	})
}

// watchRecovery bounds how long the watches take to come back after the
// restart, which returns the staleness to 0: a reflector retries after
// its backoff, at most 30 s doubled by jitter, counted from its last
// failure before the restart; then it lists, and the next live read
// (DefaultRecoveryInterval) sees the cache caught up.
const watchRecovery = 2 * time.Minute

// maxRecovery bounds how long a GuardPolicy created after an outage takes
// to be enforced: a few live reads (DefaultRecoveryInterval) and a rebuild
// on a loaded machine, far below the reflectors' backoff.
const maxRecovery = 15 * time.Second

// labelPolicy is a GuardPolicy that denies every MySQLCluster labelled
// label=true with message.
func labelPolicy(name, label, message string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crdguard.dev/v1alpha1",
		"kind":       "GuardPolicy",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"match": map[string]any{
				"resources":      []any{map[string]any{"group": "db.example.io", "kinds": []any{"MySQLCluster"}}},
				"operations":     []any{"CREATE", "UPDATE"},
				"objectSelector": map[string]any{"matchLabels": map[string]any{label: "true"}},
			},
			"rules": []any{map[string]any{
				"name": "labelled",
				"cel":  map[string]any{"expression": "false", "message": message},
			}},
		},
	}}
}
