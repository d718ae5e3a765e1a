package manifest

import (
	"strconv"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// comparePositions fails t unless the FieldPositions of text, a document
// starting at line 7 of its source, gives every path the Of and Scalar
// that the YAML parser's own positions give: every key as a name and as
// a subscript, every item, and paths that lead nowhere (a missing key,
// an index past the end, a name into a sequence, a step below a scalar).
// It tells whether the block parser read text.
func comparePositions(t testing.TB, where string, text []byte) bool {
	t.Helper()
	if _, ok := blockNodes(text); !ok {
		return false
	}
	doc := Document{Line: 7, Raw: text}
	got, want := doc.FieldPositions(), yamlFieldPositions(doc)
	paths := []string{"<nil>", "", "missing", "[0]"}
	if want.root != nil {
		paths = append(paths, pathsBelow(want.root, "", 0)...)
	}
	for _, path := range paths {
		if g, w := got.Of(path), want.Of(path); g != w {
			t.Errorf("%s: Of(%q) = %+v from the block parser, %+v from the YAML parser", where, path, g, w)
		}
		gv, gok := got.Scalar(path)
		wv, wok := want.Scalar(path)
		if gv != wv || gok != wok {
			t.Errorf("%s: Scalar(%q) = %q, %v from the block parser, %q, %v from the YAML parser", where, path, gv, gok, wv, wok)
		}
	}
	return true
}

// maxComparedPaths bounds the paths compared in one document, so that a
// CRD of thousands of fields stays quick.
const maxComparedPaths = 20000

// pathsBelow lists the paths to n's descendants and beside them, as
// field.Path prints them, prefix being n's path.
func pathsBelow(n *yaml.Node, prefix string, count int) []string {
	name := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	var paths []string
	switch n.Kind {
	case yaml.MappingNode:
		paths = append(paths, name("missing"))
		for i := 0; i+1 < len(n.Content) && count+len(paths) < maxComparedPaths; i += 2 {
			k := n.Content[i].Value
			paths = append(paths, name(k), prefix+"["+k+"]")
			paths = append(paths, pathsBelow(n.Content[i+1], name(k), count+len(paths))...)
		}
	case yaml.SequenceNode:
		last := strconv.Itoa(len(n.Content))
		paths = append(paths, prefix+"["+last+"]", prefix+"[-1]", prefix+"[+0]", name("0"))
		for i, item := range n.Content {
			if count+len(paths) >= maxComparedPaths {
				break
			}
			path := prefix + "[" + strconv.Itoa(i) + "]"
			paths = append(paths, path)
			paths = append(paths, pathsBelow(item, path, count+len(paths))...)
		}
	default:
		paths = append(paths, name("below"), prefix+"[0]")
	}
	return paths
}

func TestFieldPositionsOfBlockYAML(t *testing.T) {
	for name, text := range map[string]string{
		"nested":          "a:\n  b:\n    c: 1\n  d: x # note\n",
		"items":           "a:\n- \n- x\n-\n  b: 1\n-   # c\n- {}\n- 'q'\n- \"r s\"  # t\n- k: v\n  l: w\n",
		"indented items":  "spec:\n  list:\n    - name: a\n      value: '1'\n    - name: b\n",
		"empty values":    "k: []\nx:\nm: {}\no: ~\n",
		"comments":        "# head\n\napiVersion: v1 # x\n\n# mid\nkind: A\n",
		"quoted keys":     "metadata:\n  annotations:\n    \"a.b/c\": d\n    'e': f\n",
		"numbers as keys": "spec:\n  \"no\": 2\n  7a: 3\n  -x: 4\n",
		"non-ASCII":       "ключ: значение\nlist:\n- ключ: x\n  b: y\n",
		"last item empty": "a:\n- x\n-\n",
		"block scalars":   "a: |-\n  one\n  two\nb: >\n  three\n\n  four\nc:\n- |\n  five\n- x\n",
		"multi-line":      "a: one\n  two\nb: 'three\n  four'\nc:\n- five\n  six\nd: 7\n",
	} {
		t.Run(name, func(t *testing.T) {
			if !comparePositions(t, name, []byte(text)) {
				t.Fatalf("the block parser left %q to the YAML parser", text)
			}
		})
	}
}

// BenchmarkFieldPositions finds a field in one object as kubectl writes it
// (the samples of BenchmarkDecodeYAML) through the block parser
// (FieldPositions) and through the YAML parser, as validate does for an
// object with findings. Compare with benchstat -col /parser.
func BenchmarkFieldPositions(b *testing.B) {
	for _, name := range []string{"certificate", "httproute", "prometheus"} {
		kubectl := kubectlSample(b, name)
		if _, ok := blockNodes(kubectl); !ok {
			b.Fatalf("the block parser leaves %s to the YAML parser", name)
		}
		d := Document{Line: 1, Raw: kubectl}
		for _, parser := range []struct {
			name      string
			positions func(Document) *FieldPositions
		}{{"yaml", yamlFieldPositions}, {"block", Document.FieldPositions}} {
			b.Run("object="+name+"/parser="+parser.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if parser.positions(d).Of("metadata.name").Line == 0 {
						b.Fatal("metadata.name not found")
					}
				}
			})
		}
	}
}
