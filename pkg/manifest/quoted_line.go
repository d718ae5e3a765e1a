package manifest

import (
	"strconv"
	"unicode/utf8"
)

// quotedLine decodes text, a line of a quoted scalar after the opening
// quote or the indentation, up to the closing quote or the end of the
// line, and appends it to s. A doubled single quote is one; in double
// quotes, the escapes of YAML 1.1 are decoded as go.yaml.in/yaml/v2 does.
// Spaces at the end of a line that the quote does not close are not part
// of the value. An escaped line break, which joins lines without a
// space, or an escape the YAML parser refuses is left to the general
// decoder. closed tells whether the quote closed, after what follows it.
func quotedLine(s, text []byte, quote byte) (value, after []byte, closed, ok bool) {
	kept := len(s) // the value up to its last character that is not a space
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == quote && quote == '\'' && i+1 < len(text) && text[i+1] == '\'':
			s = append(s, '\'')
			i++
		case c == quote:
			return s, text[i+1:], true, true
		case c == '\\' && quote == '"':
			var size int
			if s, size, ok = appendEscape(s, text[i+1:]); !ok {
				return nil, nil, false, false
			}
			i += size
		case c == ' ':
			s = append(s, c)
			continue
		default:
			s = append(s, c)
		}
		kept = len(s)
	}
	return s[:kept], nil, false, true
}

// escapes are the one-character escapes of double-quoted YAML 1.1.
var escapes = map[byte]string{
	'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", 'n': "\n", 'v': "\v", 'f': "\f", 'r': "\r", 'e': "\x1b",
	' ': " ", '"': "\"", '\'': "'", '\\': "\\", 'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029",
}

// escapeDigits is the number of hexadecimal digits after \x, \u and \U.
var escapeDigits = map[byte]int{'x': 2, 'u': 4, 'U': 8}

// appendEscape appends the character that the escape whose text follows
// a backslash stands for, and tells how many bytes the escape took.
func appendEscape(s, text []byte) ([]byte, int, bool) {
	if len(text) == 0 {
		return nil, 0, false
	}
	if e, known := escapes[text[0]]; known {
		return append(s, e...), 1, true
	}
	digits := escapeDigits[text[0]]
	if digits == 0 || len(text) < 1+digits {
		return nil, 0, false
	}
	code, err := strconv.ParseUint(string(text[1:1+digits]), 16, 32)
	if err != nil || (code >= 0xd800 && code <= 0xdfff) || code > utf8.MaxRune {
		return nil, 0, false
	}
	return utf8.AppendRune(s, rune(code)), 1 + digits, true
}
