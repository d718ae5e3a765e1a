package diff

import (
	"strings"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// LineIndex finds the line of a change's path in the text of the CRD
// document it is in, so that each finding points at the node that changed
// rather than at the start of its CRD.
type LineIndex struct {
	doc       manifest.Document
	positions *manifest.FieldPositions
}

// NewLineIndex indexes doc's fields; it parses the document's text again,
// so build one only for a CRD that has changes.
func NewLineIndex(doc manifest.Document) *LineIndex {
	return &LineIndex{doc: doc, positions: doc.FieldPositions()}
}

// Line returns the 1-based line in the document's source of the node at
// path (a field.Path string such as "spec.versions[0].schema.openAPIV3Schema
// .properties.spec"), or of its nearest ancestor present in the document: a
// removed node's path still names where it was. version, when set, is the
// CRD version the path is in; an index into spec.versions that names another
// version in this document (the old CRD's index of a version since removed
// or reordered) points at spec.versions instead of at an unrelated version.
// Where nothing of the path is in the document, the line is the document's.
func (x *LineIndex) Line(path, version string) int {
	if x == nil {
		return 0
	}
	if item, ok := versionItem(path); ok && version != "" {
		if name, _ := x.positions.Scalar(item + ".name"); name != version {
			path = "spec.versions"
		}
	}
	if pos := x.positions.Of(path); pos.Line > 0 {
		return pos.Line
	}
	return x.doc.Line
}

// versionItem is the spec.versions item that path leads into
// ("spec.versions[1]"), if it leads into one.
func versionItem(path string) (string, bool) {
	const prefix = "spec.versions["
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return "", false
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return "", false
	}
	return path[:len(prefix)+end+1], true
}
