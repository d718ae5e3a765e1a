package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable quotes, as strconv does (\x1b, \r, \a, \u202e, \xff), what in s
// a terminal or a renderer would act on rather than show: control
// characters (line breaks included, so that content cannot forge a line of
// the report), format characters such as the bidirectional overrides that
// reorder what a reader sees and zero-width characters, line and paragraph
// separators, private-use characters, and bytes that are not UTF-8. Names,
// messages, field paths and file names come from the objects and files
// checked, so the human formats pass them through it. Other text, é and 日本
// included, stays as it is; backslashes are not doubled, because messages
// quote patterns full of them.
func printable(s string) string {
	i := firstUnprintable(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for s = s[i:]; len(s) > 0; {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case !unicode.IsGraphic(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

// firstUnprintable is the index of the first byte printable has to change,
// or -1. Plain ASCII, the common case, is checked without decoding.
func firstUnprintable(s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || !unicode.IsGraphic(r) {
			return i
		}
		i += size
	}
	return -1
}
