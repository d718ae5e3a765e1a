package manifest

import (
	"reflect"
	"testing"
)

// multiLineCases are scalars over several lines, one for each folding
// and chomping rule of plain, quoted, literal and folded scalars, with
// the value of "a" (or of the document, a list) that YAML 1.1 gives.
var multiLineCases = []struct {
	name, in string
	want     any
}{
	// Plain scalars.
	{"plain: a line break is a space", "a: b\n  c\n", "b c"},
	{"plain: an empty line is a line break", "a: b\n\n  c\n", "b\nc"},
	{"plain: each empty line is a line break", "a: b\n\n\n  c\n", "b\n\nc"},
	{"plain: a line of spaces is empty", "a: b\n         \n  c\n", "b\nc"},
	{"plain: spaces at the ends of lines go, inner ones stay", "a: b  \n  c   d  \n", "b c   d"},
	{"plain: indentation goes", "a: b\n      c\n   d\n", "b c d"},
	{"plain: one space more than the key continues", "a:\n  k: b\n   c\nx: d\n", map[string]any{"k": "b c"}},
	{"plain: a line at the key's indentation ends it", "a: b\n  c\nx: d\n", "b c"},
	{"plain: empty lines at the end go", "a: b\n  c\n\n\nx: d\n", "b c"},
	{"plain: a comment line ends it", "a: b\n  c\n# d\nx: e\n", "b c"},
	{"plain: an indented comment line ends it", "a: b\n  c\n  # d\nx: e\n", "b c"},
	{"plain: a comment ends it", "a: b\n  c # d\nx: e\n", "b c"},
	{"plain: a hash inside a word stays", "a: b\n  c#d\n", "b c#d"},
	{"plain: a continuation that looks like an item", "a: b\n  - c\n", "b - c"},
	{"plain: indicators inside a continuation", "a: b\n  [c] {d} &e *f !g |h >i 'j' \"k\" %l @m `n ?o -\n", "b [c] {d} &e *f !g |h >i 'j' \"k\" %l @m `n ?o -"},
	{"plain: a colon without a space", "a: b\n  http://c:80\n", "b http://c:80"},
	{"plain: resolved after folding, digits", "a: 1\n  2\n", "1 2"},
	{"plain: resolved after folding, words", "a: true\n  false\n", "true false"},
	{"plain: a float first line", "a: 1.5\n  x\n", "1.5 x"},
	{"plain: null first line", "a: null\n  x\n", "null x"},
	{"plain: an item", "a:\n- b\n  c\n- d\n", []any{"b c", "d"}},
	{"plain: an item of a sequence without indentation", "a:\n- b\n c\n", []any{"b c"}},
	{"plain: an item of an indented sequence", "a:\n  - b\n   c\n", []any{"b c"}},
	{"plain: a value in an item", "a:\n- k: b\n   c\n  l: d\n", []any{map[string]any{"k": "b c", "l": "d"}}},
	{"plain: PromQL as yaml.Marshal folds it", "a:\n- expr: " + promQL + "\n", []any{map[string]any{"expr": "sum by (service) (rate(http_requests_total{namespace=\"shop\",code=~\"5..\"}[5m])) / shop:http_requests:rate5m"}}},
	// Quoted scalars.
	{"single quotes: a line break is a space", "a: 'b\n  c'\n", "b c"},
	{"double quotes: an empty line is a line break", "a: \"b\n\n  c\"\n", "b\nc"},
	{"quotes: spaces around a line break go", "a: 'b  \n     c  '\n", "b c  "},
	{"quotes: a closing quote alone", "a: 'b\n  '\n", "b "},
	{"quotes: an opening quote alone", "a: '\n  b'\n", " b"},
	{"quotes: a hash is text", "a: 'b\n  # c'\n", "b # c"},
	{"quotes: a comment after the closing quote", "a: \"b\n  c\" # d\nx: 1\n", "b c"},
	{"quotes: an item", "a:\n- 'b\n  c'\n- d\n", []any{"b c", "d"}},
	{"quotes: a colon inside", "a: 'b: c\n  d: e'\n", "b: c d: e"},
	{"single quotes: a doubled quote", "a: 'it''s'\n", "it's"},
	{"single quotes: a doubled quote on a later line", "a: 'b\n  c''d'''\n", "b c'd'"},
	{"double quotes: one-character escapes", `a: "\0\a\b\t\n\v\f\r\e\ \"\'\\\N\_\L\P"` + "\n", "\x00\a\b\t\n\v\f\r\x1b \"'\\\u0085\u00a0\u2028\u2029"},
	{"double quotes: code escapes", `a: "\x41\xe9\u00e9\u2603\U0001F600"` + "\n", "A\u00e9\u00e9\u2603\U0001F600"},
	{"double quotes: an escape on a later line", "a: \"b\n  c\\td\"\n", "b c\td"},
	{"double quotes: an escaped space at a line's end stays", "a: \"b\\ \n  \\ c\"\n", "b   c"},
	{"double quotes: spaces before the closing quote stay", "a: \" b  \"\n", " b  "},
	{"double quotes: an escaped quote before a colon", "a: \"x\\\": y\"\n", "x\": y"},
	// Literal block scalars.
	{"literal: clip keeps the last line break", "a: |\n  x\n  y\n\n\nb: 1\n", "x\ny\n"},
	{"literal: strip", "a: |-\n  x\n  y\n\nb: 1\n", "x\ny"},
	{"literal: keep", "a: |+\n  x\n\n\nb: 1\n", "x\n\n\n"},
	{"literal: keep before a comment", "a: |+\n  x\n\n# c\n\nb: 1\n", "x\n\n"},
	{"literal: empty and more indented lines", "a: |\n  x\n\n    y\n  z\n", "x\n\n  y\nz\n"},
	{"literal: empty lines first", "a: |\n\n\n  x\n", "\n\nx\n"},
	{"literal: a line of more spaces is text", "a: |\n  x\n     \n  y\n", "x\n   \ny\n"},
	{"literal: a line of fewer spaces is empty", "a: |\n    x\n  \n    y\n", "x\n\ny\n"},
	{"literal: comments and indicators are text", "a: |\n  # c\n  b: c\n  - d\n  &e *f 'g\n  \"h\\\n", "# c\nb: c\n- d\n&e *f 'g\n\"h\\\n"},
	{"literal: a comment less indented ends it", "a: |\n  x\n # c\nb: 1\n", "x\n"},
	{"literal: a comment after the header", "a: |  # c\n  x\n", "x\n"},
	{"literal: digits stay a string", "a: |-\n  1\n", "1"},
	{"literal: at the end without a line break", "a: |\n  x", "x"},
	{"literal: keep at the end", "a: |+\n  x\n\n", "x\n\n"},
	{"literal: keep before spaces at the end", "a: |+\n  x\n\n  ", "x\n\n"},
	{"literal: indentation indicator", "a: |2\n    x\n  y\n", "  x\ny\n"},
	{"literal: indentation indicator, nested", "a:\n  k: |1\n    x\n   y\n", map[string]any{"k": " x\ny\n"}},
	{"literal: indicators in either order", "a: |-2\n   x\nb: |2+\n   y\n\n", " x"},
	{"literal: indentation indicator before a line of spaces", "a: |1\n   \n x\n", "  \nx\n"},
	{"literal: an item", "- |\n  x\n- |-\n  y\n", []any{"x\n", "y"}},
	{"literal: a value in an item", "a:\n- k: |\n    x\n  l: 1\n", []any{map[string]any{"k": "x\n", "l": int64(1)}}},
	// Folded block scalars.
	{"folded: a line break is a space", "a: >\n  x\n  y\n", "x y\n"},
	{"folded: an empty line is a line break", "a: >\n  x\n\n  y\n", "x\ny\n"},
	{"folded: two empty lines", "a: >\n  x\n\n\n  y\n", "x\n\ny\n"},
	{"folded: more indented lines keep their breaks", "a: >\n  x\n    y\n  z\n", "x\n  y\nz\n"},
	{"folded: empty line before more indented", "a: >\n  x\n\n    y\n\n  z\n", "x\n\n  y\n\nz\n"},
	{"folded: spaces at the end stay", "a: >\n  x  \n  y\n", "x   y\n"},
	{"folded: strip", "a: >-\n  x\n  y\n\n", "x y"},
	{"folded: keep", "a: >+\n  x\n  y\n\n", "x y\n\n"},
	{"folded: empty lines first", "a: >\n\n  x\n  y\n", "\nx y\n"},
	{"folded: indentation indicator", "a: >2-\n    x\n  y\n  z\n", "  x\ny z"},
	{"folded: words stay a string", "a: >-\n  true\n", "true"},
}

// promQL is a PromQL expression as yaml.Marshal folds it at its column.
const promQL = "sum by (service) (rate(http_requests_total{namespace=\"shop\",code=~\"5..\"}[5m]))\n" +
	"    / shop:http_requests:rate5m"

// TestBlockYAMLMultiLineScalars: the fast path decodes each of
// multiLineCases to the value written there, which is the general
// decoder's.
func TestBlockYAMLMultiLineScalars(t *testing.T) {
	for _, c := range multiLineCases {
		t.Run(c.name, func(t *testing.T) {
			v, ok := decodeBlockYAML([]byte(c.in))
			if !ok {
				t.Fatalf("the fast path left %q to the general decoder", c.in)
			}
			want, err := decodeYAMLGeneral([]byte(c.in))
			if err != nil {
				t.Fatalf("the general decoder refuses %q: %v", c.in, err)
			}
			if !reflect.DeepEqual(v, want) {
				t.Fatalf("%q: fast path\n%#v\ngeneral decoder\n%#v", c.in, v, want)
			}
			got := v
			if m, isMap := v.(map[string]any); isMap {
				got = m["a"]
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("%q: a is %#v, want %#v", c.in, got, c.want)
			}
		})
	}
}
