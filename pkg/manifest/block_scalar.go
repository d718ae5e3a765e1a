package manifest

import (
	"bytes"
	"strings"
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
	v, ok := resolvePlain(string(raw))
	s, isString := v.(string)
	return s, ok && isString
}

// scalarValue decodes a value that ends on its line: quoted without
// escapes, plain, or the empty mapping or sequence ("{}", "[]") that
// kubectl writes, followed by nothing but an optional comment. Flow
// collections with content are left to the general decoder.
func scalarValue(text []byte) (any, bool) {
	if v, ok := emptyCollection(text); ok {
		return v, true
	}
	if text[0] == '"' || text[0] == '\'' {
		end := bytes.IndexByte(text[1:], text[0])
		if end < 0 {
			return nil, false
		}
		end += 2
		if !emptyValue(text[end:]) || (end < len(text) && text[end] != ' ') {
			return nil, false
		}
		return quoted(text[:end])
	}
	if !plainStart(text) {
		return nil, false
	}
	if i := bytes.Index(text, []byte(" #")); i >= 0 {
		text = text[:i]
	}
	text = bytes.TrimRight(text, " ")
	// "a: b: c" and "a: b:" are errors of the YAML parser.
	if bytes.Contains(text, []byte(": ")) || text[len(text)-1] == ':' {
		return nil, false
	}
	return resolvePlain(string(text))
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
