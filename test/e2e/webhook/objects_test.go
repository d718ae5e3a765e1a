package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/pkg/manifest"
)

// readExamples reads the objects of one file of examples/mysql, moved into
// namespace ns so each test has its own.
func readExamples(name, ns string) ([]*unstructured.Unstructured, error) {
	docs, err := manifest.ReadFile(filepath.Join(cluster.examples, name))
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, d := range docs {
		if d.Err != nil {
			return nil, fmt.Errorf("%s: %w", d.Position(), d.Err)
		}
		obj := d.Object.DeepCopy()
		obj.SetNamespace(ns)
		out = append(out, obj)
	}
	return out, nil
}

// readExample reads a file of examples/mysql that holds one object, moved
// into namespace ns.
func readExample(name, ns string) (*unstructured.Unstructured, error) {
	obj, err := localcluster.ReadObject(filepath.Join(cluster.examples, name), "")
	if err != nil {
		return nil, err
	}
	obj.SetNamespace(ns)
	return obj, nil
}

// example is readExample for tests.
func example(t *testing.T, name, ns string) *unstructured.Unstructured {
	t.Helper()
	obj, err := readExample(name, ns)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// createExample creates the example object name in namespace ns, as the
// admin, for a test that starts from it stored.
func createExample(t *testing.T, name, ns string) *unstructured.Unstructured {
	t.Helper()
	obj := example(t, name, ns)
	if err := cluster.client.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	return obj
}

// createForTest creates obj as the admin and deletes it when the test
// ends.
func createForTest(t *testing.T, obj client.Object) {
	t.Helper()
	if err := cluster.client.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.client.Delete(context.Background(), obj) })
}

// writeObject writes obj to a file for kubectl and the CLI.
func writeObject(t *testing.T, obj *unstructured.Unstructured) string {
	t.Helper()
	data, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), obj.GetName()+".json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// namespace creates a namespace for one test, named after it.
func namespace(t *testing.T) string {
	t.Helper()
	name := localcluster.NamespaceName("wh-"+t.Name(), 63)
	if err := localcluster.EnsureNamespace(t.Context(), cluster.client, name, nil); err != nil {
		t.Fatal(err)
	}
	return name
}

// stored gets the stored version of obj, or nil when there is none.
func stored(t *testing.T, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(obj.GroupVersionKind())
	err := cluster.client.Get(t.Context(), client.ObjectKeyFromObject(obj), got)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		t.Fatal(err)
	}
	return got
}

// unstructuredString reads a string field.
func unstructuredString(obj *unstructured.Unstructured, fields ...string) (string, bool, error) {
	return unstructured.NestedString(obj.Object, fields...)
}

// result is what one kubectl run reported.
type result struct {
	ok             bool
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("ok=%v\nstdout:\n%s\nstderr:\n%s", r.ok, r.stdout, r.stderr)
}

// runKubectl runs kubectl as user; a non-zero exit is a result, not an
// error.
func runKubectl(t *testing.T, user string, args ...string) result {
	t.Helper()
	return runKubectlContext(t.Context(), t, user, args...)
}

func runKubectlContext(ctx context.Context, t *testing.T, user string, args ...string) result {
	t.Helper()
	cmd := kubectl(ctx, user, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return result{ok: err == nil, stdout: stdout.String(), stderr: stderr.String()}
}
