package manifest

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestKindsNamed(t *testing.T) {
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	gadget := schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Gadget"}
	list := schema.GroupVersionKind{Version: "v1", Kind: "List"}
	for _, tc := range []struct {
		name, text string
		want       []schema.GroupVersionKind
	}{
		{"documents, once each in order", "apiVersion: example.com/v1\nkind: Widget\n---\nkind: Gadget\nmetadata:\n  kind: Nested\napiVersion: example.com/v2\n---\napiVersion: example.com/v1\nkind: Widget\n", []schema.GroupVersionKind{widget, gadget}},
		{"quoted, commented and CRLF", "apiVersion: \"example.com/v1\"\r\nkind: 'Widget' # a comment\r\n", []schema.GroupVersionKind{widget}},
		{"List items as kubectl writes them", "apiVersion: v1\nitems:\n- apiVersion: example.com/v1\n  kind: Widget\n  spec:\n    kind: Nested\n- kind: Gadget\n  apiVersion: example.com/v2\nkind: List\n", []schema.GroupVersionKind{widget, gadget, list}},
		{"nested fields name nothing", "spec:\n  apiVersion: example.com/v1\n  kind: Widget\n", nil},
		{"a document without a kind names nothing", "apiVersion: example.com/v1\n---\nkind: Widget\n", nil},
		{"flow style and JSON name nothing", "{apiVersion: example.com/v1, kind: Widget}\n", nil},
		{"a line longer than the buffer is skipped", "apiVersion: example.com/v1\nkind: Widget\nnote: " + strings.Repeat("x", 10_000) + "\n", []schema.GroupVersionKind{widget}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KindsNamed(strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("KindsNamed = %v, want %v", got, tc.want)
			}
		})
	}
}
