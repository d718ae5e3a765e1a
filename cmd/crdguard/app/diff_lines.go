package app

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// lineIndex finds the line of a field in one document's text, so that each
// diff finding points at the node that changed rather than at the start of
// its CRD. It parses the document with a YAML parser that keeps positions
// (JSON is YAML, so JSON documents get lines too) rather than searching the
// text, which would match a key at the wrong depth.
type lineIndex struct {
	doc  manifest.Document
	root *yaml.Node // the document's top mapping; nil when unparsable
}

func newLineIndex(doc manifest.Document) *lineIndex {
	idx := &lineIndex{doc: doc}
	if len(doc.Raw) == 0 {
		return idx // a List item or a document that did not decode
	}
	var n yaml.Node
	if err := yaml.Unmarshal(doc.Raw, &n); err != nil || n.Kind != yaml.DocumentNode || len(n.Content) == 0 {
		return idx
	}
	idx.root = resolve(n.Content[0])
	return idx
}

// line returns the 1-based line in the document's source of the node at
// path (a field.Path string such as "spec.versions[0].schema.openAPIV3Schema
// .properties.spec"), or of its nearest ancestor present in the document: a
// removed node's path still names where it was. version, when set, is the
// CRD version the path is in; an index into spec.versions that names another
// version in this document (the old CRD's index of a version since removed
// or reordered) stops the walk at spec.versions instead of pointing at an
// unrelated version. Without a parsed document it falls back to the
// document's own line.
func (x *lineIndex) line(path, version string) int {
	if x == nil {
		return 0
	}
	if x.root == nil {
		return x.doc.Line
	}
	node := x.root
	segs := splitFieldPath(path)
	for i, seg := range segs {
		next := child(node, seg)
		if next == nil {
			break
		}
		if version != "" && i == 2 && segs[0].name == "spec" && segs[1].name == "versions" && !named(next, version) {
			break
		}
		node = next
	}
	// Both lines count from 1: the node's line within the document plus
	// the document's first line in the source, less one.
	return x.doc.Line + node.Line - 1
}

// pathSeg is one step of a field path: a name (".name"), or a subscript
// ("[0]", "[key]") that is an index into a sequence or a key of a mapping,
// depending on what the document has there.
type pathSeg struct {
	name      string
	subscript bool
}

// splitFieldPath splits what field.Path.String prints. A subscript ends at
// the "]" followed by the end, "." or "[", so that a key holding "]" (which
// field.Path does not escape) still reads as one key.
func splitFieldPath(p string) []pathSeg {
	var segs []pathSeg
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := -1
			for i := 1; i < len(p); i++ {
				if p[i] == ']' && (i+1 == len(p) || p[i+1] == '.' || p[i+1] == '[') {
					end = i
					break
				}
			}
			if end < 0 {
				return append(segs, pathSeg{name: p[1:], subscript: true})
			}
			segs = append(segs, pathSeg{name: p[1:end], subscript: true})
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			segs = append(segs, pathSeg{name: p[:end]})
			p = p[end:]
		}
	}
	return segs
}

// child is the node one step below n, or nil.
func child(n *yaml.Node, seg pathSeg) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := resolve(n.Content[i]); k.Kind == yaml.ScalarNode && k.Value == seg.name {
				// The key's line: a block mapping or sequence value starts on
				// the next line, while the key is the line a reader looks
				// for (and an alias value's target is elsewhere).
				return withLine(resolve(n.Content[i+1]), k.Line)
			}
		}
	case yaml.SequenceNode:
		if !seg.subscript {
			return nil
		}
		i, err := strconv.Atoi(seg.name)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil
		}
		return resolve(n.Content[i])
	}
	return nil
}

// withLine is v reported at line, without changing the parsed tree.
func withLine(v *yaml.Node, line int) *yaml.Node {
	c := *v
	c.Line = line
	return &c
}

// named tells whether a spec.versions item is the version called name.
func named(item *yaml.Node, name string) bool {
	n := child(item, pathSeg{name: "name"})
	return n != nil && n.Kind == yaml.ScalarNode && n.Value == name
}

// resolve follows aliases to the node they stand for.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
