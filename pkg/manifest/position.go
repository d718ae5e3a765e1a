package manifest

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Position is a place in a source: a 1-based line and a 1-based column,
// counted in characters. The zero Position means unknown.
type Position struct {
	Line   int
	Column int
}

// FieldPositions finds where the fields of one document are in its source.
// It holds the document's parsed node tree, so callers build it only for a
// document that has something to point at, and drop it with the document.
type FieldPositions struct {
	// line is the document's first line in its source.
	line int
	// root is the document's top node; nil when there is nothing to look in.
	root *yaml.Node
}

// FieldPositions parses the document's text with a YAML parser that keeps
// positions (JSON is YAML, so JSON documents get them too) rather than
// searching the text, which would match a key at the wrong depth. A
// document without Raw (a List item) or whose text does not parse gives a
// FieldPositions that finds nothing. Block YAML that the fast decoder
// reads is parsed by it, into the nodes the YAML parser would give.
func (d Document) FieldPositions() *FieldPositions {
	if root, ok := blockNodes(d.Raw); ok {
		return &FieldPositions{line: d.Line, root: root}
	}
	return yamlFieldPositions(d)
}

// yamlFieldPositions is FieldPositions through go.yaml.in/yaml/v3.
func yamlFieldPositions(d Document) *FieldPositions {
	p := &FieldPositions{line: d.Line}
	if len(d.Raw) == 0 {
		return p
	}
	var n yaml.Node
	if err := yaml.Unmarshal(d.Raw, &n); err != nil || n.Kind != yaml.DocumentNode || len(n.Content) == 0 {
		return p
	}
	p.root = resolve(n.Content[0])
	return p
}

// Of returns where the node at path is: path is a field.Path string as the
// API server prints it ("spec.containers[0].image", "metadata.labels[app]").
// A field's position is its key's, the place a reader looks for; a list
// item's is the item's. When path leads below what the document has, the
// position is that of the nearest ancestor that is there, and when not even
// its first step is there (or path is the root, "<nil>"), Of returns the
// zero Position: the path is then about the document as a whole.
func (p *FieldPositions) Of(path string) Position {
	if p == nil || p.root == nil {
		return Position{}
	}
	var at Position
	node := p.root
	for _, seg := range splitFieldPath(path) {
		next, pos := child(node, seg)
		if next == nil {
			break
		}
		node, at = next, pos
	}
	if at.Line == 0 {
		return Position{}
	}
	// Both lines count from 1: the node's line within the document plus
	// the document's first line in the source, less one.
	return Position{Line: p.line + at.Line - 1, Column: at.Column}
}

// Scalar returns the value of the scalar at exactly path, such as the
// name of a list item ("spec.versions[1].name"), and whether there is one.
func (p *FieldPositions) Scalar(path string) (string, bool) {
	if p == nil || p.root == nil {
		return "", false
	}
	node := p.root
	for _, seg := range splitFieldPath(path) {
		if node, _ = child(node, seg); node == nil {
			return "", false
		}
	}
	return node.Value, node.Kind == yaml.ScalarNode
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
	if p == "<nil>" {
		return nil
	}
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

// child is the node one step below n and the position that names it, or
// nil.
func child(n *yaml.Node, seg pathSeg) (*yaml.Node, Position) {
	switch n.Kind {
	case yaml.MappingNode:
		return mappingValue(n, seg.name, 0)
	case yaml.SequenceNode:
		if !seg.subscript {
			return nil, Position{}
		}
		i, err := strconv.Atoi(seg.name)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil, Position{}
		}
		item := n.Content[i]
		return resolve(item), Position{Line: item.Line, Column: item.Column}
	}
	return nil, Position{}
}

// maxMergeDepth bounds how deep merge keys ("<<: *base") are followed, so
// that a document whose anchors merge into each other cannot loop.
const maxMergeDepth = 8

// mappingValue finds key in mapping m, then in the mappings m merges in:
// a merged value is written, and so found, where its anchor is.
func mappingValue(m *yaml.Node, key string, depth int) (*yaml.Node, Position) {
	var merged []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := resolve(m.Content[i])
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if k.Value == key && k.Tag != "!!merge" {
			return resolve(m.Content[i+1]), Position{Line: k.Line, Column: k.Column}
		}
		if k.Tag == "!!merge" {
			merged = append(merged, resolve(m.Content[i+1]))
		}
	}
	if depth >= maxMergeDepth {
		return nil, Position{}
	}
	for _, v := range merged {
		sources := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			sources = v.Content
		}
		for _, s := range sources {
			if s = resolve(s); s.Kind == yaml.MappingNode {
				if found, pos := mappingValue(s, key, depth+1); found != nil {
					return found, pos
				}
			}
		}
	}
	return nil, Position{}
}

// resolve follows aliases to the node they stand for.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
