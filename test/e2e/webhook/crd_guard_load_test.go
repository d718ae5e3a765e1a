package webhook

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// concurrentCRDs is how many guarded CRDs TestCRDGuardConcurrentApprovals
// upgrades at once, as a release of a large operator (or several) does.
const concurrentCRDs = 48

// storedPerCRD is how many objects each of those CRDs stores: three list
// calls per replay in the suite's pages of two, so the 48 replays' list
// calls (about 150) stay well within the replays' own rate limit
// (--crd-replay-qps 50, burst 100), which is not what this test measures.
const storedPerCRD = 6

// TestCRDGuardConcurrentApprovals: 48 approved breaking updates of 48
// guarded CRDs, each with stored objects to replay, sent at once through
// the real API server, are all accepted within the API server's webhook
// timeout.
func TestCRDGuardConcurrentApprovals(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t)
	crds := make([]*apiextensionsv1.CustomResourceDefinition, concurrentCRDs)
	for i := range crds {
		crds[i] = guardedCRD(fmt.Sprintf("load%d", i), fmt.Sprintf("Load%d", i))
		if err := cluster.client.Create(ctx, crds[i].DeepCopy()); err != nil {
			t.Fatalf("creating %s: %v", crds[i].Name, err)
		}
	}
	t.Cleanup(func() {
		for _, crd := range crds {
			if err := cluster.client.Delete(context.Background(), crd.DeepCopy()); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting %s: %v", crd.Name, err)
			}
		}
	})
	// Stored objects per kind, within today's maximum and the new one: the
	// replays list them all (in pages of two here) and find nothing.
	for _, crd := range crds {
		if err := localcluster.WaitEstablished(ctx, cluster.client, crd.Name); err != nil {
			t.Fatal(err)
		}
		for j := range storedPerCRD {
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": crd.Spec.Group + "/v1", "kind": crd.Spec.Names.Kind,
				"metadata": map[string]any{"name": fmt.Sprintf("o%d", j), "namespace": ns},
				"spec":     map[string]any{"size": int64(3)},
			}}
			eventually(t, "creating a stored "+crd.Spec.Names.Kind, func(ctx context.Context) (bool, string) {
				err := cluster.client.Create(ctx, obj.DeepCopy())
				return err == nil || apierrors.IsAlreadyExists(err), errString(err)
			})
		}
	}
	registerCRDGuard(t)
	lower := func(crd *apiextensionsv1.CustomResourceDefinition) {
		editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) {
			size := p["size"]
			size.Maximum = ptr.To(5.0)
			p["size"] = size
		})
	}
	eventually(t, "an unapproved lower maximum denied", func(ctx context.Context) (bool, string) {
		err := updateCRD(ctx, cluster.client, crds[0].Name, lower, client.DryRunAll)
		return apierrors.IsInvalid(err), errString(err)
	})

	// All at once: at client-go's default 5 requests a second, the 48
	// updates (a read and a write each) reached the webhook over 20 s.
	cfg, err := clientcmd.BuildConfigFromFlags("", cluster.configs["alice"])
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS = -1
	alice, err := client.New(cfg, client.Options{Scheme: cluster.client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(crds))
	took := make([]time.Duration, len(crds))
	start := make(chan struct{})
	for i, crd := range crds {
		wg.Go(func() {
			<-start
			began := time.Now()
			// A conflict with the API server's own status update of a new
			// CRD is no answer of the webhook's: read the CRD again.
			errs[i] = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
				err := updateCRD(ctx, alice, crd.Name, func(crd *apiextensionsv1.CustomResourceDefinition) {
					lower(crd)
					crd.Annotations = map[string]string{v1alpha1.ApproveAnnotation: "maximum-changed: every stored object is below 5"}
				})
				return !apierrors.IsConflict(err), err
			})
			took[i] = time.Since(began)
		})
	}
	close(start)
	wg.Wait()
	failed := 0
	for i, err := range errs {
		if err != nil {
			failed++
			t.Errorf("%s after %v: %v", crds[i].Name, took[i], err)
		}
	}
	t.Logf("%d of %d approved updates failed; slowest %v", failed, len(crds), slices.Max(took))
}
