package manifest

import (
	"bytes"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// maxKeyBytes keeps keys well under the 1024 characters that YAML allows
// an implicit key.
const maxKeyBytes = 1000

// splitKey cuts "key: rest" or "key:" into the key's text (quotes
// included) and what follows the colon. found is false for a line that
// holds no key; ok is false for one the fast path leaves to the general
// decoder.
func splitKey(text []byte) (key, rest []byte, found, ok bool) {
	if text[0] == '"' || text[0] == '\'' {
		end := bytes.IndexByte(text[1:], text[0])
		if end < 0 {
			return nil, nil, false, false // continues on the next line
		}
		end += 2
		after := text[end:]
		if len(after) == 0 || after[0] != ':' {
			// A quoted scalar, or a key with spaces before its colon.
			return nil, nil, false, bytes.IndexByte(after, ':') < 0
		}
		if len(after) > 1 && after[1] != ' ' {
			return nil, nil, false, false
		}
		return text[:end], after[1:], true, end <= maxKeyBytes
	}
	if !plainStart(text) {
		return nil, nil, false, false
	}
	for i := 0; i < len(text); i++ {
		if text[i] != ':' || (i+1 < len(text) && text[i+1] != ' ') {
			continue
		}
		key := text[:i]
		if bytes.Contains(key, []byte(" #")) || key[len(key)-1] == ' ' || len(key) > maxKeyBytes {
			return nil, nil, false, false
		}
		return key, text[i+1:], true, true
	}
	return nil, nil, false, true
}

// plainStart tells whether text can start a plain scalar in block
// context. Indicators (anchors, aliases, tags, flow collections, block
// scalars, directives, reserved characters, "? " keys) are not for the
// fast path, and neither are "-", "?" and ":" that start a scalar.
func plainStart(text []byte) bool {
	switch text[0] {
	case '-':
		return len(text) > 1 && text[1] != ' '
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return true
}

// keyString is the string a mapping key decodes to. A plain key that
// YAML 1.1 resolves to anything but a string (true, 1, null, "<<") is
// left to the general decoder.
func keyString(raw []byte) (string, bool) {
	if raw[0] == '"' || raw[0] == '\'' {
		return quoted(raw)
	}
	key := string(raw)
	switch c := key[0]; {
	case c == '.' || c == '+' || c == '-' || (c >= '0' && c <= '9'):
		// What may be a number: resolved as a value is.
		v, ok := resolvePlain(key)
		s, isString := v.(string)
		return s, ok && isString
	}
	// Anything else is the string, unless it is one of YAML 1.1's words,
	// none of which resolves to a string.
	_, word := yaml11Word(key)
	return key, !word
}

// scalar reads the value that starts with text, the rest of the line
// before pos, in a collection at indent: a block scalar, a quoted or
// plain scalar on one line or several, or the empty mapping or sequence
// ("{}", "[]") that kubectl writes, followed by nothing but an optional
// comment. Flow collections with content are left to the general decoder.
func (p *blockParser) scalar(indent int, text []byte) (any, bool) {
	switch text[0] {
	case '|', '>':
		return p.blockScalar(indent, text)
	case '{', '[':
		return emptyCollection(text)
	case '"', '\'':
		return p.quotedLines(indent, text)
	}
	if !plainStart(text) {
		return nil, false
	}
	first, commented, ok := plainLine(text)
	if !ok {
		return nil, false
	}
	if commented {
		// A comment ends a plain scalar.
		return resolvePlain(string(first))
	}
	folded, ok := p.plainLines(indent, first)
	if !ok {
		return nil, false
	}
	return resolvePlain(folded)
}

// scalarStart tells the start of a scalar that splitKey leaves to its
// caller: a block scalar's header or a quoted scalar, which quotedLines
// reads whole.
func scalarStart(text []byte) bool {
	switch text[0] {
	case '|', '>', '"', '\'':
		return true
	}
	return false
}

// plainLine is the part of a line that a plain scalar holds: up to a
// comment, if any, without the spaces before it. A ": " or a ":" at its
// end, errors of the YAML parser ("a: b: c", "a: b:"), are left to the
// general decoder.
func plainLine(text []byte) (value []byte, commented, ok bool) {
	if i := bytes.Index(text, []byte(" #")); i >= 0 {
		text, commented = text[:i], true
	}
	text = bytes.TrimRight(text, " ")
	if bytes.Contains(text, []byte(": ")) || text[len(text)-1] == ':' {
		return nil, false, false
	}
	return text, commented, true
}

// quoted is the string of a one-line quoted scalar, quotes included.
// Its text holds no quote of its kind (the caller cut it at the first),
// so a doubled single quote never reaches here; a backslash in double
// quotes, an escape, leaves it to the general decoder.
func quoted(raw []byte) (string, bool) {
	s := string(raw[1 : len(raw)-1])
	if raw[0] == '"' && strings.IndexByte(s, '\\') >= 0 {
		return "", false
	}
	return s, true
}

// emptyCollection is the empty mapping or sequence of a value that is
// "{}" or "[]" alone on its line, as JSON gives them back.
func emptyCollection(text []byte) (any, bool) {
	if len(text) < 2 || (len(text) > 2 && text[2] != ' ') || !emptyValue(text[2:]) {
		return nil, false
	}
	switch string(text[:2]) {
	case "{}":
		return map[string]any{}, true
	case "[]":
		return []any{}, true
	}
	return nil, false
}

// scalarNode is the node at line and column of a value that ends on its
// line, text, which decoded to v: the empty mapping or sequence, a quoted
// scalar whose value is v, or a plain one whose value is its text without
// comment or trailing spaces (v being what YAML 1.1 resolves it to).
func scalarNode(text []byte, v any, line, column int) *yaml.Node {
	node := &yaml.Node{Kind: yaml.ScalarNode, Line: line, Column: column}
	switch {
	case bytes.HasPrefix(text, []byte("{}")):
		node.Kind = yaml.MappingNode
	case bytes.HasPrefix(text, []byte("[]")):
		node.Kind = yaml.SequenceNode
	case text[0] == '"' || text[0] == '\'':
		node.Value, _ = v.(string)
	default:
		if i := bytes.Index(text, []byte(" #")); i >= 0 {
			text = text[:i]
		}
		node.Value = string(bytes.TrimRight(text, " "))
	}
	return node
}
