package manifest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Document is one object read from a source.
type Document struct {
	// Source is the path the document was read from, "-" for standard input.
	Source string
	// Index is the 0-based position of the document within Source. Items of a
	// List share the List's index and tell themselves apart by Item.
	Index int
	// InList marks an item of a List, Item being its 0-based index in the
	// List's items.
	InList bool
	Item   int
	// Line is the 1-based line at which the document starts in Source: for
	// an item of a List, the item's line.
	Line int
	// Raw is the document's text as read, its first line being Line, so
	// that a caller can find where a field is (crdguard diff points each
	// finding at its line). Nil for the items of a List, whose text is the
	// whole List's.
	Raw []byte
	// Object is the decoded object; nil when Err is set.
	Object *unstructured.Unstructured
	// Err says why the document could not be decoded. The other documents of
	// the same source are still usable.
	Err error
}

// Position names the document for humans: "file.yaml:12 (document 2)",
// and an item of a List by its path: "list.yaml:9 (document 1, items[1])".
func (d Document) Position() string {
	if d.InList {
		return fmt.Sprintf("%s:%d (document %d, items[%d])", d.Source, d.Line, d.Index+1, d.Item)
	}
	return fmt.Sprintf("%s:%d (document %d)", d.Source, d.Line, d.Index+1)
}
