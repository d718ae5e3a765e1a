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
	// List share the List's index.
	Index int
	// Line is the 1-based line at which the document starts in Source.
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

// Position names the document for humans: "file.yaml:12 (document 2)".
func (d Document) Position() string {
	return fmt.Sprintf("%s:%d (document %d)", d.Source, d.Line, d.Index+1)
}
