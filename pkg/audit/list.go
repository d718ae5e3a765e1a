package audit

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// DefaultPageSize is the list limit when Lister.PageSize is zero: large
// enough that few requests are made, small enough that one page of big
// objects stays a few megabytes.
const DefaultPageSize = 250

// Lister reads objects page by page through Client, whose QPS bounds the
// request rate.
type Lister struct {
	Client dynamic.Interface
	// PageSize is the limit of one list call. Default DefaultPageSize.
	PageSize int64
	// MaxObjects bounds the objects one List reads: the page that takes
	// the count past it ends the listing with a *TooManyObjectsError,
	// before any of its objects reaches fn; so does the first page whose
	// remainingItemCount, when the server gives one, says the count will
	// pass it, so that a caller with a deadline learns it at once. Default
	// 0: no bound.
	MaxObjects int
}

// TooManyObjectsError is a listing stopped at Lister.MaxObjects. It is an
// error, not a short answer: the objects not read could be the ones that
// matter.
type TooManyObjectsError struct {
	Resource schema.GroupVersionResource
	// Max is the bound, Lister.MaxObjects.
	Max int
}

func (e *TooManyObjectsError) Error() string {
	return fmt.Sprintf("%s has more than %d objects", e.Resource.GroupResource(), e.Max)
}

// List hands each of t's objects in namespace ("" for all) to fn, one page
// in memory at a time. Objects get t's apiVersion and kind, which list
// items lack in some encodings. An error from fn stops the listing.
func (l *Lister) List(ctx context.Context, t Target, namespace string, fn func(*unstructured.Unstructured) error) error {
	resource := dynamic.ResourceInterface(l.Client.Resource(t.Resource))
	if t.Namespaced && namespace != "" {
		resource = l.Client.Resource(t.Resource).Namespace(namespace)
	}
	opts := metav1.ListOptions{Limit: l.PageSize}
	if opts.Limit <= 0 {
		opts.Limit = DefaultPageSize
	}
	seen := 0
	for {
		list, err := resource.List(ctx, opts)
		if err != nil {
			return err
		}
		seen += len(list.Items)
		ahead := seen
		if remaining := list.GetRemainingItemCount(); remaining != nil {
			ahead += int(*remaining)
		}
		if l.MaxObjects > 0 && ahead > l.MaxObjects {
			return &TooManyObjectsError{Resource: t.Resource, Max: l.MaxObjects}
		}
		for i := range list.Items {
			list.Items[i].SetGroupVersionKind(t.Kind)
			if err := fn(&list.Items[i]); err != nil {
				return err
			}
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return nil
		}
	}
}

// NamespaceLabels reads every namespace's labels, for policies that select
// namespaces by label. A namespace without labels maps to an empty map.
func (l *Lister) NamespaceLabels(ctx context.Context) (map[string]map[string]string, error) {
	namespaces := Target{
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"},
		Kind:     schema.GroupVersionKind{Version: "v1", Kind: "Namespace"},
	}
	labels := map[string]map[string]string{}
	err := l.List(ctx, namespaces, "", func(ns *unstructured.Unstructured) error {
		labels[ns.GetName()] = ns.GetLabels()
		if labels[ns.GetName()] == nil {
			labels[ns.GetName()] = map[string]string{}
		}
		return nil
	})
	return labels, err
}
