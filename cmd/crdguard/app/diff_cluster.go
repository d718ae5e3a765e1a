package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/crdguard/crdguard/pkg/audit"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
	"github.com/crdguard/crdguard/pkg/schema/diff"
)

// clusterPrefix starts the OLD side that reads the CRDs installed in the
// cluster of the current kubeconfig context: "cluster:" or
// "cluster:NAME,...".
const clusterPrefix = "cluster:"

// objectsFromCluster is the --objects value that replays the stored
// objects of the changed CRDs, listed from the cluster.
const objectsFromCluster = "cluster"

// lastApplied is the annotation kubectl apply keeps on an object: written
// by the client, not by the CRD's author, so a live CRD's copy of it is
// no change of the CRD.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

var (
	crdResource = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")
	svmTarget   = audit.Target{
		Resource: storagemigrationv1.SchemeGroupVersion.WithResource("storageversionmigrations"),
		Kind:     storagemigrationv1.SchemeGroupVersion.WithKind("StorageVersionMigration"),
	}
)

// kubeCluster is the cluster diff reads: connected on first use, once, so
// that a diff of files never needs a kubeconfig.
type kubeCluster struct {
	kubeconfig, context string
	// connect builds the client; tests replace it with a fake.
	connect func() (dynamic.Interface, error)
	once    sync.Once
	client  dynamic.Interface
	err     error
}

// newKubeCluster connects through the kubeconfig file (default:
// $KUBECONFIG or ~/.kube/config) and context (default: its current one).
func newKubeCluster() *kubeCluster {
	c := &kubeCluster{}
	c.connect = func() (dynamic.Interface, error) {
		loading := clientcmd.NewDefaultClientConfigLoadingRules()
		loading.ExplicitPath = c.kubeconfig
		config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, &clientcmd.ConfigOverrides{CurrentContext: c.context}).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("kubeconfig: %w", err)
		}
		return dynamic.NewForConfig(config)
	}
	return c
}

// Client is the cluster's client; failing to build one is a usage error.
func (c *kubeCluster) Client() (dynamic.Interface, error) {
	c.once.Do(func() { c.client, c.err = c.connect() })
	if c.err != nil {
		return nil, inputError(c.err)
	}
	return c.client, nil
}

// parseClusterSide reads "cluster:" (nil names: the cluster's copy of
// every CRD NEW holds) or "cluster:NAME,...".
func parseClusterSide(arg string) (names []string, ok bool, err error) {
	rest, ok := strings.CutPrefix(arg, clusterPrefix)
	if !ok {
		return nil, false, nil
	}
	if rest == "" {
		return nil, true, nil
	}
	for name := range strings.SplitSeq(rest, ",") {
		if name == "" {
			return nil, true, fmt.Errorf("%q: want cluster: or cluster:NAME[,NAME...]", arg)
		}
		names = append(names, name)
	}
	return names, true, nil
}

// liveCRDs reads the named CRDs from the cluster, as the API server stores
// them (defaulted, with status.storedVersions). A CRD named in
// cluster:NAME,... that the cluster lacks is an error, a mistyped name;
// with cluster:, one only NEW has is a CRD the upgrade adds.
func liveCRDs(ctx context.Context, client dynamic.Interface, names []string, mustExist bool) ([]schema.LocatedCRD, error) {
	var crds []schema.LocatedCRD
	for _, name := range names {
		obj, err := client.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) && !mustExist:
			continue
		case err != nil:
			return nil, fmt.Errorf("reading CRD %s from the cluster: %w", name, err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, crd); err != nil {
			return nil, fmt.Errorf("CRD %s from the cluster: %w", name, err)
		}
		delete(crd.Annotations, lastApplied)
		crds = append(crds, schema.LocatedCRD{CRD: crd, Doc: manifest.Document{Source: clusterPrefix + name, Object: obj}})
	}
	return crds, nil
}

// crdNames are the names of crds.
func crdNames(crds []schema.LocatedCRD) []string {
	names := make([]string, len(crds))
	for i, c := range crds {
		names[i] = c.CRD.Name
	}
	return names
}

// defaulted sets on each CRD the defaults the API server sets when it
// stores one, so that a file compares with the cluster's copy by meaning,
// not by which defaults were spelled out.
func defaulted(crds []schema.LocatedCRD) []schema.LocatedCRD {
	out := make([]schema.LocatedCRD, len(crds))
	for i, c := range crds {
		out[i] = schema.LocatedCRD{CRD: c.CRD.DeepCopy(), Doc: c.Doc}
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(out[i].CRD)
	}
	return out
}

// migrationRuns are the cluster's StorageVersionMigrations by resource.
type migrationRuns map[metav1.GroupResource][]storagemigrationv1.StorageVersionMigration

// listMigrationRuns reads the cluster's StorageVersionMigrations, paged. An
// error leaves whether a migration ran unknown, which the finding says.
func listMigrationRuns(ctx context.Context, client dynamic.Interface) (migrationRuns, error) {
	runs := migrationRuns{}
	lister := &audit.Lister{Client: client}
	err := lister.List(ctx, svmTarget, "", func(obj *unstructured.Unstructured) error {
		svm := storagemigrationv1.StorageVersionMigration{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &svm); err != nil {
			return fmt.Errorf("StorageVersionMigration %s: %w", obj.GetName(), err)
		}
		runs[svm.Spec.Resource] = append(runs[svm.Spec.Resource], svm)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing StorageVersionMigrations: %w", err)
	}
	return runs, nil
}

// status says whether a migration of m's resource ran in the cluster,
// read from the StorageVersionMigrations of its resource, newest first.
// Only a migration after the storage version became m.To can have
// rewritten the objects in it, so with the storage version still to move
// none counts.
func (r migrationRuns) status(m *diff.Migration, live *apiextensionsv1.CustomResourceDefinition) string {
	if liveStorage := storageVersionOf(live); liveStorage != m.To {
		return fmt.Sprintf("none can have run yet: the cluster stores %s in %s", m.Resource.String(), liveStorage)
	}
	runs := slices.Clone(r[m.Resource])
	slices.SortFunc(runs, func(a, b storagemigrationv1.StorageVersionMigration) int {
		return b.CreationTimestamp.Compare(a.CreationTimestamp.Time)
	})
	for _, svm := range runs {
		conds := svm.Status.Conditions
		switch {
		case meta.IsStatusConditionTrue(conds, string(storagemigrationv1.MigrationSucceeded)):
			c := meta.FindStatusCondition(conds, string(storagemigrationv1.MigrationSucceeded))
			return fmt.Sprintf("StorageVersionMigration %s succeeded at %s, but status.storedVersions still lists %s: kube-controller-manager trims it only when the CRD did not change during the migration; if the storage version was %s when it ran, remove %s from status.storedVersions (kubectl patch --subresource=status), else apply the migration again under a new name",
				svm.Name, c.LastTransitionTime.UTC().Format("2006-01-02T15:04:05Z"), strings.Join(m.From, ", "), m.To, strings.Join(m.From, ", "))
		case meta.IsStatusConditionTrue(conds, string(storagemigrationv1.MigrationFailed)):
			c := meta.FindStatusCondition(conds, string(storagemigrationv1.MigrationFailed))
			return fmt.Sprintf("StorageVersionMigration %s failed: %s", svm.Name, c.Message)
		case meta.IsStatusConditionTrue(conds, string(storagemigrationv1.MigrationRunning)):
			return fmt.Sprintf("StorageVersionMigration %s is running", svm.Name)
		}
	}
	if len(runs) > 0 {
		return fmt.Sprintf("StorageVersionMigration %s has not started: is kube-controller-manager's storage version migrator enabled?", runs[0].Name)
	}
	return "none has run in the cluster"
}

func storageVersionOf(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// errNoCluster is --objects cluster without OLD cluster:.
var errNoCluster = errors.New("--objects cluster replays the objects stored under OLD's CRDs: OLD must be cluster: or cluster:NAME[,NAME...]")
