package app

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/audit"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema"
	"github.com/crdguard/crdguard/pkg/schema/diff"
)

// notReplayedRule names the finding of a kind whose stored objects could
// not be listed.
const notReplayedRule = "not-replayed"

// defaultObjectsLimit is --objects-limit's default: the stored objects of
// one version of one kind that --objects cluster replays before it stops.
// A replay validates several hundred objects a second
// (BenchmarkCRDReplay), so this is tens of seconds, and the results stay a
// few megabytes.
const defaultObjectsLimit = 10000

// replayCluster lists, page by page, the stored objects of every version
// diff.ReplayVersions names for each CRD both sides hold, and replays each
// against the new CRDs with diff.Replay, as the webhook's /validate-crd
// does at apply time. A kind RBAC forbids listing is a result that says it
// was not replayed, at warning level, never a clean one; any other failure
// to list, and a kind past limit, is an error.
func replayCluster(ctx context.Context, streams Streams, client dynamic.Interface, pairs []diff.Pair, newCRDs []schema.LocatedCRD, limit int) ([]report.Result, error) {
	crds := make([]*apiextensionsv1.CustomResourceDefinition, len(newCRDs))
	for i, c := range newCRDs {
		crds[i] = c.CRD
	}
	registry, err := schema.NewRegistry(crds...)
	if err != nil {
		return nil, inputError(err)
	}
	var replayed atomic.Int64
	var current atomic.Pointer[string]
	none := ""
	current.Store(&none)
	progress := startProgress(streams.Err, func(elapsed time.Duration) string {
		return fmt.Sprintf("replaying %s: %d stored objects in %s", *current.Load(), replayed.Load(), elapsed.Round(time.Second))
	})
	defer progress.stop()

	lister := &audit.Lister{Client: client, MaxObjects: limit}
	var results []report.Result
	for _, pair := range pairs {
		if pair.Old == nil || pair.New == nil {
			continue
		}
		crd := pair.New
		for _, version := range diff.ReplayVersions(pair.Old, crd) {
			target := audit.Target{
				Resource:   k8sschema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: crd.Spec.Names.Plural},
				Kind:       k8sschema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind},
				Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
			}
			resource := target.Resource.GroupResource().String()
			current.Store(&resource)
			source := clusterPrefix + resource
			err := lister.List(ctx, target, "", func(obj *unstructured.Unstructured) error {
				replayed.Add(1)
				results = append(results, replayDocument(ctx, registry, manifest.Document{Source: source, Object: obj}))
				return nil
			})
			var tooMany *audit.TooManyObjectsError
			switch {
			case apierrors.IsForbidden(err):
				results = append(results, notReplayed(target, source, err))
			case errors.As(err, &tooMany):
				return nil, usageError("%s has more than %d stored objects at %s; raise --objects-limit", resource, tooMany.Max, version)
			case err != nil:
				return nil, unreadableCluster(fmt.Errorf("listing %s: %w", resource, err))
			}
		}
	}
	return results, nil
}

// notReplayed is the result of a kind whose objects RBAC forbids listing:
// skipped, with a warning that names what would decide it.
func notReplayed(t audit.Target, source string, err error) report.Result {
	resource := t.Resource.GroupResource().String()
	reason := fmt.Sprintf("%v; grant list on %s (docs/cli.md shows a ClusterRole), or replay an export with --objects DIR", err, resource)
	return report.Result{
		Source: source, APIVersion: t.Kind.GroupVersion().String(), Kind: t.Kind.Kind, Operation: "UPDATE",
		Skipped: true, SkipReason: reason,
		Violations: []report.Finding{{
			Type: "warning", Message: "stored objects not replayed, so what the new CRD does to them is unknown: " + reason,
			Policy: replayPolicy, Rule: notReplayedRule, Enforcement: v1alpha1.Warn,
		}},
	}
}
