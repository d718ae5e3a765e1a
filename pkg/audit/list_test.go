package audit

import (
	"errors"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// TestListRemainingItemCount: a first page whose remainingItemCount says
// the count will pass MaxObjects ends the listing there, before any object
// is handed on; within the bound it changes nothing.
func TestListRemainingItemCount(t *testing.T) {
	target := Target{
		Resource:   schema.GroupVersionResource{Group: "test.example.io", Version: "v1", Resource: "widgets"},
		Kind:       schema.GroupVersionKind{Group: "test.example.io", Version: "v1", Kind: "Widget"},
		Namespaced: true,
	}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{target.Resource: "WidgetList"})
	// The first page of two, as the API server answers limit=2 with 3
	// more stored.
	client.PrependReactor("list", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
		list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "test.example.io/v1", "kind": "WidgetList"}}
		for i := range 2 {
			list.Items = append(list.Items, unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "test.example.io/v1", "kind": "Widget",
				"metadata": map[string]any{"name": fmt.Sprintf("w-%d", i), "namespace": "ns"},
			}})
		}
		list.SetRemainingItemCount(ptr.To[int64](3))
		return true, list, nil
	})
	for _, tt := range []struct {
		max     int
		tooMany bool
		handed  int
	}{{max: 4, tooMany: true}, {max: 5, handed: 2}, {max: 0, handed: 2}} {
		t.Run(fmt.Sprintf("max %d", tt.max), func(t *testing.T) {
			handed := 0
			err := (&Lister{Client: client, PageSize: 2, MaxObjects: tt.max}).List(t.Context(), target, "", func(*unstructured.Unstructured) error {
				handed++
				return nil
			})
			var tooMany *TooManyObjectsError
			if errors.As(err, &tooMany) != tt.tooMany || (!tt.tooMany && err != nil) || handed != tt.handed {
				t.Errorf("err %v after %d objects, want too many %v after %d", err, handed, tt.tooMany, tt.handed)
			}
		})
	}
}
