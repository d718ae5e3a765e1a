package manifest

import (
	"bytes"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// decodeBlockYAML decodes the block YAML that kubectl writes and that
// operators' samples are written in, as yaml.YAMLToJSONStrict followed by
// utiljson.Unmarshal decodes it: maps, lists, strings (plain and quoted
// on one line or several, literal and folded), int64, bools and nil. It
// is a fast path only: it answers ok only when it is sure of the value,
// and otherwise (anchors, tags, flow collections, escaped line breaks,
// floats, duplicate keys, tabs, odd indentation, anything it does not
// know) leaves the document to the general decoder, whose value or error
// then stands. It never reports an error of its own.
func decodeBlockYAML(data []byte) (any, bool) {
	if !plainText(data) {
		return nil, false
	}
	lines, ok := contentLines(data)
	if !ok || len(lines) == 0 {
		return nil, false
	}
	p := blockParser{data: data, lines: lines}
	v, ok := p.block(lines[0].indent)
	if !ok || p.pos != len(lines) {
		return nil, false
	}
	return v, true
}

// blockNodes parses what decodeBlockYAML decodes into the nodes
// go.yaml.in/yaml/v3 gives it, as far as FieldPositions reads them: the
// kind of every node; the value, line and column of every key; the line
// and column of every item of a sequence; the value of every scalar. It
// is ok only when decodeBlockYAML is, and leaves to the YAML parser a
// block scalar or a scalar over several lines that is not a string.
func blockNodes(data []byte) (*yaml.Node, bool) {
	if !plainText(data) {
		return nil, false
	}
	lines, ok := contentLines(data)
	if !ok || len(lines) == 0 {
		return nil, false
	}
	p := blockParser{data: data, lines: lines, nodes: true}
	v, ok := p.block(lines[0].indent)
	if !ok || p.pos != len(lines) {
		return nil, false
	}
	return v.(*yaml.Node), true
}

// maxBlockDepth bounds the nesting the fast path follows; deeper
// documents, which no Kubernetes object needs, go to the general decoder.
const maxBlockDepth = 100

// blockLine is a line with content: its 1-based number, its indentation
// in spaces, the text after it, and the offset in the document of the
// line after it, where a scalar that goes on over several lines
// continues.
type blockLine struct {
	number int
	indent int
	text   []byte
	next   int
}

// plainText tells whether data is UTF-8 and holds only characters the
// YAML 1.1 reader takes as printable and that are neither tabs nor line
// breaks other than "\n", so that columns are spaces and lines are lines.
func plainText(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if (c < ' ' && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if (r == utf8.RuneError && size == 1) || !printableRune(r) {
			return false
		}
		i += size
	}
	return true
}

// printableRune is a non-ASCII rune the YAML reader accepts within a
// line: the byte order mark and the Unicode line and paragraph separators
// (line breaks in YAML 1.1) are left to the general decoder.
func printableRune(r rune) bool {
	switch {
	case r == 0xfeff, r == 0x2028, r == 0x2029:
		return false
	case r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd, r >= 0x10000 && r <= 0x10ffff:
		return true
	}
	return false
}

// contentLines cuts data into its lines with content, leaving out blank
// and comment-only lines. A document marker or directive inside (a line
// starting with "---", "..." or "%") is not for the fast path.
func contentLines(data []byte) ([]blockLine, bool) {
	lines := make([]blockLine, 0, bytes.Count(data, []byte("\n"))+1)
	for offset, number := 0, 1; offset < len(data); number++ {
		line, next, _ := rawLine(data, offset)
		offset = next
		text := bytes.TrimLeft(line, " ")
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		indent := len(line) - len(text)
		if indent == 0 && (bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("...")) || text[0] == '%') {
			return nil, false
		}
		lines = append(lines, blockLine{number: number, indent: indent, text: text, next: next})
	}
	return lines, true
}

// rawLine is the line of data at offset, without its line break, the
// offset of the line after it, and whether a line break ends it.
func rawLine(data []byte, offset int) (line []byte, next int, broken bool) {
	rest := data[offset:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		return rest[:i], offset + i + 1, true
	}
	return rest, len(data), false
}

// skipTo moves pos past the lines that end before offset: those a
// scalar over several lines covers.
func (p *blockParser) skipTo(offset int) {
	for p.pos < len(p.lines) && p.lines[p.pos].next <= offset {
		p.pos++
	}
}

// blockParser reads block mappings and sequences from lines. Every node
// of a collection starts at a line of its own or after "- ". A scalar
// that goes on over several lines is read from data, and the lines it
// covers are skipped; any other line indented more than where a parser
// expects one is an error, left to the general decoder.
type blockParser struct {
	data  []byte
	lines []blockLine
	pos   int
	depth int
	// nodes makes the parser return *yaml.Node values (see blockNodes)
	// in place of the decoded ones.
	nodes bool
}

// block reads the mapping or sequence whose first line is at pos, at
// indent.
func (p *blockParser) block(indent int) (any, bool) {
	if p.depth++; p.depth > maxBlockDepth {
		return nil, false
	}
	defer func() { p.depth-- }()
	if sequenceEntry(p.lines[p.pos].text) {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

// sequenceEntry tells a line that starts an item of a block sequence.
func sequenceEntry(text []byte) bool {
	return text[0] == '-' && (len(text) == 1 || text[1] == ' ')
}

// emptyValue tells the rest of a line that holds no value: nothing or a
// comment (the text given starts after a space or at the line's end).
func emptyValue(rest []byte) bool {
	rest = bytes.TrimLeft(rest, " ")
	return len(rest) == 0 || rest[0] == '#'
}

// more tells whether a line follows at more than indent.
func (p *blockParser) more(indent int) bool {
	return p.pos < len(p.lines) && p.lines[p.pos].indent > indent
}

// at tells whether a line follows at exactly indent.
func (p *blockParser) at(indent int) bool {
	return p.pos < len(p.lines) && p.lines[p.pos].indent == indent
}

func (p *blockParser) mapping(indent int) (any, bool) {
	m := make(map[string]any)
	var node *yaml.Node
	if p.nodes {
		node = &yaml.Node{Kind: yaml.MappingNode, Line: p.lines[p.pos].number, Column: indent + 1}
	}
	for p.at(indent) {
		line := p.lines[p.pos]
		text := line.text
		if sequenceEntry(text) {
			return nil, false // "- " among keys
		}
		rawKey, rest, found, ok := splitKey(text)
		if !ok || !found {
			return nil, false
		}
		key, ok := keyString(rawKey)
		if !ok {
			return nil, false
		}
		if _, dup := m[key]; dup {
			return nil, false // the strict decoder's error
		}
		p.pos++
		var v any
		switch {
		case !emptyValue(rest):
			content := bytes.TrimLeft(rest, " ")
			if v, ok = p.nodeScalar(indent, content, 0, 0); !ok || p.more(indent) {
				return nil, false
			}
		case p.more(indent):
			if v, ok = p.block(p.lines[p.pos].indent); !ok {
				return nil, false
			}
		case p.at(indent) && sequenceEntry(p.lines[p.pos].text):
			// A sequence may sit at its key's indentation.
			if v, ok = p.sequence(indent); !ok {
				return nil, false
			}
		case node != nil:
			v = &yaml.Node{Kind: yaml.ScalarNode}
		}
		m[key] = v
		if node != nil {
			k := &yaml.Node{Kind: yaml.ScalarNode, Value: key, Line: line.number, Column: indent + 1}
			node.Content = append(node.Content, k, v.(*yaml.Node))
		}
	}
	if p.more(indent) {
		return nil, false
	}
	if node != nil {
		return node, true
	}
	return m, true
}

// nodeScalar is scalar, or in nodes mode the scalar's node at line and
// column. The value of a block scalar or of one over several lines is
// the string it decodes to; one of those that is not a string is left to
// the YAML parser.
func (p *blockParser) nodeScalar(indent int, text []byte, line, column int) (any, bool) {
	next := p.pos
	v, ok := p.scalar(indent, text)
	if !ok || !p.nodes {
		return v, ok
	}
	if p.pos != next || text[0] == '|' || text[0] == '>' {
		s, isString := v.(string)
		return &yaml.Node{Kind: yaml.ScalarNode, Value: s, Line: line, Column: column}, isString
	}
	return scalarNode(text, v, line, column), true
}

func (p *blockParser) sequence(indent int) (any, bool) {
	var items []any
	var node *yaml.Node
	if p.nodes {
		node = &yaml.Node{Kind: yaml.SequenceNode, Line: p.lines[p.pos].number, Column: indent + 1}
	}
	for p.at(indent) && sequenceEntry(p.lines[p.pos].text) {
		line := p.lines[p.pos]
		rest := line.text[1:]
		var v any
		var ok bool
		if emptyValue(rest) {
			p.pos++
			if p.more(indent) {
				if v, ok = p.block(p.lines[p.pos].indent); !ok {
					return nil, false
				}
			} else if node != nil {
				// The parser puts an empty item just after its "-".
				v = &yaml.Node{Kind: yaml.ScalarNode, Line: line.number, Column: indent + 2}
			}
			items = append(items, v)
			continue
		}
		content := bytes.TrimLeft(rest, " ")
		// The item's column: its text follows "-" and spaces only.
		column := line.indent + len(line.text) - len(content)
		if sequenceEntry(content) {
			return nil, false // "- - x"
		}
		if v, ok = emptyCollection(content); ok {
			p.pos++
			if p.more(indent) {
				return nil, false
			}
			if node != nil {
				v = scalarNode(content, v, line.number, column+1)
			}
			items = append(items, v)
			continue
		}
		_, _, isKey, ok := splitKey(content)
		if !ok && !scalarStart(content) {
			return nil, false
		}
		if isKey {
			// "- key: value" starts a mapping at the key's column: read
			// its first line as if it stood there alone.
			p.lines[p.pos].indent, p.lines[p.pos].text = column, content
			if v, ok = p.block(column); !ok {
				return nil, false
			}
		} else {
			p.pos++
			if v, ok = p.nodeScalar(indent, content, line.number, column+1); !ok || p.more(indent) {
				return nil, false
			}
		}
		items = append(items, v)
	}
	if p.more(indent) {
		return nil, false
	}
	if node != nil {
		node.Content = make([]*yaml.Node, len(items))
		for i, item := range items {
			node.Content[i] = item.(*yaml.Node)
		}
		return node, true
	}
	return items, true
}
