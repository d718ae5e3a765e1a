package e2e

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/crdguard/crdguard/pkg/audit"
)

// listCalls records the list requests a client sends: their limit and
// continue parameters.
type listCalls struct {
	mu    sync.Mutex
	calls []string
	next  http.RoundTripper
}

func (c *listCalls) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && req.URL.Query().Has("limit") {
		c.mu.Lock()
		c.calls = append(c.calls, fmt.Sprintf("limit=%s continue=%t", req.URL.Query().Get("limit"), req.URL.Query().Get("continue") != ""))
		c.mu.Unlock()
	}
	return c.next.RoundTrip(req)
}

// TestListerPages lists stored objects through pkg/audit's Lister, as the
// background audit and /validate-crd do, against the real API server: in
// pages of PageSize following the server's continue tokens, and stopped
// with a *TooManyObjectsError at the first page, before its objects are
// handed on, when the server's remainingItemCount says the count will
// pass MaxObjects.
func TestListerPages(t *testing.T) {
	const namespace = "lister-pages"
	ensureNamespaces(t, namespace)
	for i := range 5 {
		w := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "test.crdguard.dev/v1", "kind": "Widget",
			"metadata": map[string]any{"name": fmt.Sprintf("w-%d", i), "namespace": namespace},
			"spec":     map[string]any{"size": "small", "replicas": int64(1)},
		}}
		if err := cluster.client.Create(t.Context(), w); err != nil {
			t.Fatalf("storing widget %d: %v", i, err)
		}
	}
	target := audit.Target{
		Resource:   schema.GroupVersionResource{Group: "test.crdguard.dev", Version: "v1", Resource: "widgets"},
		Kind:       schema.GroupVersionKind{Group: "test.crdguard.dev", Version: "v1", Kind: "Widget"},
		Namespaced: true,
	}
	lister := func(t *testing.T, maxObjects int) (*audit.Lister, *listCalls) {
		cfg := restConfig(t)
		calls := &listCalls{}
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { calls.next = rt; return calls })
		client, err := dynamic.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return &audit.Lister{Client: client, PageSize: 2, MaxObjects: maxObjects}, calls
	}
	pages := []string{"limit=2 continue=false", "limit=2 continue=true", "limit=2 continue=true"}

	for _, maxObjects := range []int{0, 5} {
		t.Run(fmt.Sprintf("max %d", maxObjects), func(t *testing.T) {
			l, calls := lister(t, maxObjects)
			var names []string
			err := l.List(t.Context(), target, namespace, func(obj *unstructured.Unstructured) error {
				if obj.GroupVersionKind() != target.Kind {
					t.Errorf("%s: kind %v, want %v", obj.GetName(), obj.GroupVersionKind(), target.Kind)
				}
				names = append(names, obj.GetName())
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"w-0", "w-1", "w-2", "w-3", "w-4"}; !slices.Equal(names, want) {
				t.Errorf("listed %q, want %q", names, want)
			}
			if !slices.Equal(calls.calls, pages) {
				t.Errorf("list calls %q, want %q", calls.calls, pages)
			}
		})
	}

	t.Run("past the bound", func(t *testing.T) {
		l, calls := lister(t, 4)
		var names []string
		err := l.List(t.Context(), target, namespace, func(obj *unstructured.Unstructured) error {
			names = append(names, obj.GetName())
			return nil
		})
		var tooMany *audit.TooManyObjectsError
		if !errors.As(err, &tooMany) || err.Error() != "widgets.test.crdguard.dev has more than 4 objects" {
			t.Fatalf("err = %v, want a *TooManyObjectsError", err)
		}
		if len(names) > 0 {
			t.Errorf("handed on %q before the bound, want none", names)
		}
		if !slices.Equal(calls.calls, pages[:1]) {
			t.Errorf("list calls %q, want %q", calls.calls, pages[:1])
		}
	})
}
