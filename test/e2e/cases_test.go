package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
)

const widgetsCRD = "widgets.test.crdguard.dev"

// TestSchemaCases compares every case of pkg/schema/testdata/cases: new.yaml
// is a create, or an update of old.yaml when the case has one. The stored
// old object is created for real, so invalid old objects (ratcheting) are
// stored the only way the server allows: under a relaxed CRD.
func TestSchemaCases(t *testing.T) {
	targets, updates := caseTargets(t, "case", filepath.Join(cluster.root, "pkg", "schema", "testdata", "cases"))
	// Counts of the corpus at the time of writing, so a moved corpus cannot pass empty.
	if len(targets) < 42 || len(updates) < 10 {
		t.Errorf("found %d cases (%d updates), want at least 42 (10 updates)", len(targets), len(updates))
	}
	compareAll(t, targets)
}

// TestWidgetUpdates compares more updates of Widgets: ratcheting of each
// kind of schema error, CEL re-evaluation, list-type duplicates, status
// and metadata on update.
func TestWidgetUpdates(t *testing.T) {
	targets, updates := caseTargets(t, "update", filepath.Join("testdata", "widgets-updates"))
	if len(updates) != len(targets) || len(updates) < 18 {
		t.Errorf("found %d cases (%d updates), want at least 18, all updates", len(targets), len(updates))
	}
	compareAll(t, targets)
}

// caseTargets reads a directory of cases (<case>/new.yaml and, for an
// update, <case>/old.yaml) of Widgets, stores the old objects, and returns
// all cases and the updates among them.
func caseTargets(t *testing.T, nsPrefix, dir string) (targets, updates []*target) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		newFile := filepath.Join(dir, e.Name(), "new.yaml")
		docs := readDocuments(t, newFile)
		if len(docs) != 1 {
			t.Fatalf("%s: %d documents, want 1", newFile, len(docs))
		}
		obj := docs[0].obj
		name := obj.GetName()
		if name == "" {
			name = obj.GetGenerateName()
		}
		if obj.GetNamespace() != "" {
			t.Fatalf("%s: the cases are namespace-less; each is sent to its own namespace", newFile)
		}
		tg := &target{
			name:      e.Name(),
			set:       setWidgets,
			source:    newFile,
			key:       objectKey{newFile, obj.GetAPIVersion(), obj.GetKind(), name},
			file:      newFile,
			namespace: localcluster.NamespaceName(nsPrefix+"-"+e.Name(), 63),
		}
		if obj.GetName() == "" {
			tg.generateName = obj.GetGenerateName()
		}
		ensureNamespaces(t, tg.namespace)
		if old := filepath.Join(dir, e.Name(), "old.yaml"); fileExists(t, old) {
			tg.old, tg.update = old, true
			updates = append(updates, tg)
		}
		targets = append(targets, tg)
	}
	if len(updates) > 0 {
		storeOldObjects(t, updates)
	}
	return targets, updates
}

// storeOldObjects creates each update's old.yaml in the cluster, then points
// the update at a copy of new.yaml that carries the stored object's
// namespace and resourceVersion (kubectl replace needs both).
//
// Some old objects violate the widgets CRD (ratcheting cases): they are
// created while the CRD is relaxed (see relax), and the strict CRD is
// restored before anything is compared.
func storeOldObjects(t *testing.T, updates []*target) {
	ctx := t.Context()
	strict := &apiextensionsv1.CustomResourceDefinition{}
	if err := cluster.client.Get(ctx, client.ObjectKey{Name: widgetsCRD}, strict); err != nil {
		t.Fatal(err)
	}
	probe := &unstructured.Unstructured{}
	probe.SetAPIVersion("test.crdguard.dev/v1")
	probe.SetKind("Widget")
	probe.SetNamespace(updates[0].namespace)
	probe.SetName("probe")
	if err := unstructured.SetNestedField(probe.Object, "gigantic", "spec", "size"); err != nil {
		t.Fatal(err)
	}

	relaxed := strict.Spec.DeepCopy()
	for i := range relaxed.Versions {
		v := &relaxed.Versions[i]
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			relax(v.Schema.OpenAPIV3Schema)
		}
		// Without the status subresource a create stores status too;
		// without the scale subresource, any replicas.
		v.Subresources = nil
	}
	setCRDSpec(t, relaxed)
	restored := false
	restore := func() {
		if !restored {
			restored = true
			setCRDSpec(t, &strict.Spec)
		}
	}
	defer restore()
	waitForProbe(t, probe, true)

	for _, tg := range updates {
		docs := readDocuments(t, tg.old)
		if len(docs) != 1 {
			t.Fatalf("%s: %d documents, want 1", tg.old, len(docs))
		}
		old := docs[0].obj
		old.SetNamespace(tg.namespace)
		if err := cluster.client.Create(ctx, old); err != nil {
			t.Fatalf("%s: storing the old object under the relaxed CRD: %v", tg.name, err)
		}
		data, err := os.ReadFile(tg.source)
		if err != nil {
			t.Fatal(err)
		}
		tg.file = writeTemp(t, "new.yaml", withStoredMetadata(t, tg.source, data, tg.namespace, old.GetResourceVersion()))
	}

	restore()
	waitForProbe(t, probe, false)
}

// relax removes from s, recursively, every constraint an old object of the
// cases may violate, keeping types, defaults and required fields (so the
// stored object is decoded, pruned and defaulted as under the strict CRD).
func relax(s *apiextensionsv1.JSONSchemaProps) {
	s.Pattern, s.Format, s.Enum, s.XValidations = "", "", nil, nil
	s.Maximum, s.Minimum, s.ExclusiveMaximum, s.ExclusiveMinimum = nil, nil, false, false
	s.MaxLength, s.MinLength, s.MaxItems, s.MinItems, s.MaxProperties, s.MinProperties = nil, nil, nil, nil, nil, nil
	s.XListType, s.XListMapKeys = nil, nil // list-maps and sets become atomic lists: duplicates allowed
	s.XEmbeddedResource = false            // embedded metadata is not validated
	for k, p := range s.Properties {
		relax(&p)
		s.Properties[k] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		relax(s.Items.Schema)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		relax(s.AdditionalProperties.Schema)
	}
}

// setCRDSpec replaces the widgets CRD's spec.
func setCRDSpec(t *testing.T, spec *apiextensionsv1.CustomResourceDefinitionSpec) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := cluster.client.Get(context.WithoutCancel(t.Context()), client.ObjectKey{Name: widgetsCRD}, crd); err != nil {
			return err
		}
		crd.Spec = *spec.DeepCopy()
		return cluster.client.Update(context.WithoutCancel(t.Context()), crd)
	})
	if err != nil {
		t.Fatalf("updating CRD %s: %v", widgetsCRD, err)
	}
}

// waitForProbe polls a dry-run create of probe (a Widget with an enum
// violation) until the server accepts it (relaxed CRD in force) or rejects
// it as invalid (strict CRD in force).
func waitForProbe(t *testing.T, probe *unstructured.Unstructured, accepted bool) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		last = cluster.client.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		if accepted {
			return last == nil, nil
		}
		return apierrors.IsInvalid(last), nil
	})
	if err != nil {
		t.Fatalf("waiting for the server to enforce the %s widgets CRD: %v (last probe: %v)", map[bool]string{true: "relaxed", false: "strict"}[accepted], err, last)
	}
}

var metadataBlock = regexp.MustCompile(`(?m)^metadata:\n(  \S)`)

// withStoredMetadata inserts namespace and resourceVersion into the
// metadata block of a manifest, leaving the rest byte for byte.
func withStoredMetadata(t *testing.T, file string, data []byte, namespace, resourceVersion string) []byte {
	t.Helper()
	if len(metadataBlock.FindAllIndex(data, -1)) != 1 || regexp.MustCompile(`(?m)^  (namespace|resourceVersion):`).Match(data) {
		t.Fatalf("%s: need exactly one block-style metadata: without namespace and resourceVersion", file)
	}
	return metadataBlock.ReplaceAll(data, fmt.Appendf(nil, "metadata:\n  namespace: %s\n  resourceVersion: %q\n$1", namespace, resourceVersion))
}

func fileExists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if os.IsNotExist(err) {
		return false
	} else if err != nil {
		t.Fatal(err)
	}
	return true
}
