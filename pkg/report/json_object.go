package report

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// writeJSONObject writes v, the content of an unstructured object (maps,
// slices, strings, int64, float64, booleans and nil), exactly as
// encodeJSON writes it nested at prefix, but without reflection: a stored
// object is most of a --show-stored result, and encoding/json's reflection,
// key sorting and second indenting pass cost about 5% of validating it.
// Values of other types go through encoding/json.
func writeJSONObject(w *bytes.Buffer, prefix string, v any) error {
	switch v := v.(type) {
	case nil:
		w.WriteString("null")
	case bool:
		w.WriteString(strconv.FormatBool(v))
	case string:
		writeJSONString(w, v)
	case int64:
		w.Write(strconv.AppendInt(w.AvailableBuffer(), v, 10))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return encodeJSON(w, prefix, v) // encoding/json's error
		}
		writeJSONFloat(w, v)
	case map[string]any:
		if v == nil {
			w.WriteString("null")
			return nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return writeJSONItems(w, prefix, '{', '}', len(keys), func(inner string, i int) error {
			writeJSONString(w, keys[i])
			w.WriteString(": ")
			return writeJSONObject(w, inner, v[keys[i]])
		})
	case []any:
		if v == nil {
			w.WriteString("null")
			return nil
		}
		return writeJSONItems(w, prefix, '[', ']', len(v), func(inner string, i int) error {
			return writeJSONObject(w, inner, v[i])
		})
	default:
		return encodeJSON(w, prefix, v)
	}
	return nil
}

// writeJSONItems writes n items between two brackets as encoding/json
// indents them: each on a line of its own, indented below prefix, and
// nothing between the brackets when there are none.
func writeJSONItems(w *bytes.Buffer, prefix string, openBracket, closeBracket byte, n int, item func(inner string, i int) error) error {
	w.WriteByte(openBracket)
	if n > 0 {
		inner := prefix + "  "
		for i := range n {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
			w.WriteString(inner)
			if err := item(inner, i); err != nil {
				return err
			}
		}
		w.WriteByte('\n')
		w.WriteString(prefix)
	}
	w.WriteByte(closeBracket)
	return nil
}

// writeJSONString writes s quoted as encoding/json does without HTML
// escaping: invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029 are escaped
// for JavaScript's sake.
func writeJSONString(w *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b >= 0x20 && b != '"' && b != '\\' && b < utf8.RuneSelf {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			w.WriteString(s[start:i])
			switch b {
			case '"', '\\':
				w.WriteByte('\\')
				w.WriteByte(b)
			case '\b':
				w.WriteString(`\b`)
			case '\f':
				w.WriteString(`\f`)
			case '\n':
				w.WriteString(`\n`)
			case '\r':
				w.WriteString(`\r`)
			case '\t':
				w.WriteString(`\t`)
			default:
				w.WriteString(`\u00`)
				w.WriteByte(hex[b>>4])
				w.WriteByte(hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			w.WriteString(s[start:i])
			w.WriteString(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			w.WriteString(s[start:i])
			w.WriteString(`\u202`)
			w.WriteByte(hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	w.WriteString(s[start:])
	w.WriteByte('"')
}

// writeJSONFloat writes a finite f as encoding/json does: as ECMAScript
// prints numbers, in exponent form below 1e-6 and from 1e21 on, with the
// exponent unpadded.
func writeJSONFloat(w *bytes.Buffer, f float64) {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(w.AvailableBuffer(), f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	w.Write(b)
}
