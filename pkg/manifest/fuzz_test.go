package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// FuzzRead feeds arbitrary bytes to the reader: it must never panic, and
// every document must carry either an object with apiVersion and kind or an
// error.
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob("../../examples/*/*.yaml")
	more, _ := filepath.Glob("../schema/testdata/cases/*/*.yaml")
	for _, p := range append(seeds, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [1, {kind: X}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := Read(bytes.NewReader(data), "fuzz.yaml")
		if err != nil {
			return
		}
		for _, d := range docs {
			if (d.Object == nil) == (d.Err == nil) {
				t.Fatalf("document %d: object %v, error %v: exactly one must be set", d.Index, d.Object, d.Err)
			}
			if d.Object != nil && (d.Object.GetAPIVersion() == "" || d.Object.GetKind() == "") {
				t.Fatalf("document %d: decoded without apiVersion or kind", d.Index)
			}
			if d.Line < 1 {
				t.Fatalf("document %d: line %d", d.Index, d.Line)
			}
		}
	})
}

// FuzzListItemByItem: a source whose Lists read item by item give no
// error gives the documents it gives read whole.
func FuzzListItemByItem(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: A\n  data:\n    s: |\n      - x\n- apiVersion: v1\n  kind: B\nkind: List\n"))
	f.Add([]byte("kind: List\nitems:\n  - apiVersion: v1\n    kind: A\n  -\n    apiVersion: v1\n    kind: B\nmetadata: {}\n"))
	f.Add([]byte("kind: List\nitems:\n- apiVersion: v1\n  kind: A\n  q: \"a\n    b\"\n---\nkind: List\nitems: [{apiVersion: v1, kind: B}]\n"))
	f.Add([]byte("apiVersion: v1\nitems:#not a comment: 0\n  - apiVersion: v1\n    kind: A\nkind: List\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var byItem []Document
		if parts(bytes.NewReader(data), "f.yaml", true, func(p Part) error {
			byItem = append(byItem, p.Documents()...)
			return nil
		}) != nil {
			return
		}
		for _, d := range byItem {
			if d.Err != nil {
				return
			}
		}
		var whole []Document
		_ = parts(bytes.NewReader(data), "f.yaml", false, func(p Part) error {
			whole = append(whole, p.Documents()...)
			return nil
		})
		if got, want := summarize(byItem), summarize(whole); got != want {
			t.Fatalf("read item by item:\n%s\nread whole:\n%s", got, want)
		}
	})
}

// FuzzFieldPositions: for whatever the block parser reads, the field
// positions it gives are the YAML parser's, for every path. It is seeded
// as FuzzBlockYAML.
func FuzzFieldPositions(f *testing.F) {
	addBlockYAMLSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		comparePositions(t, "fuzzed", data)
	})
}

// FuzzBlockYAML: whatever the block-YAML fast path decodes, the general
// decoder decodes to the same value. It is seeded with the documents of
// the examples and policy library, as written and as kubectl writes them,
// with multiLineCases, and with long and multi-line strings as kubectl
// writes them (folded plain, quoted, literal).
func FuzzBlockYAML(f *testing.F) {
	addBlockYAMLSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := decodeBlockYAML(data)
		if !ok {
			return
		}
		want, err := decodeYAMLGeneral(data)
		if err != nil {
			t.Fatalf("the fast path decoded %q, which the general decoder refuses: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: fast path\n%#v\ngeneral decoder\n%#v", data, got, want)
		}
	})
}

// addBlockYAMLSeeds adds the documents of the examples, the policy
// library and the schema cases, as written and as kubectl writes them.
func addBlockYAMLSeeds(f *testing.F) {
	var files []string
	for _, pattern := range []string{"../../examples/*/*.yaml", "../../policies/*/*.yaml", "../../policies/*/*/*.yaml", "../schema/testdata/cases/*/*.yaml"} {
		more, _ := filepath.Glob(pattern)
		files = append(files, more...)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		_ = Parts(bytes.NewReader(data), p, func(part Part) error {
			f.Add(part.data)
			if v, err := decodeYAMLGeneral(part.data); err == nil {
				if out, err := yaml.Marshal(v); err == nil {
					f.Add(out)
				}
			}
			return nil
		})
	}
	for _, c := range multiLineCases {
		f.Add([]byte(c.in))
	}
	long := strings.Repeat("word ", 20)
	for _, v := range []string{
		long, long + "\n" + long, "  " + long + "  ", long + "\n\n", "x\n  y\n", "\tx: 'y'\n", long + "\"q\" 'q' # x: y",
		strings.ReplaceAll(long, " ", "  "), "é " + long + "\u2028", "1\n", "- x\n", long + "\x00",
	} {
		out, err := yaml.Marshal(map[string]any{"a": v, "b": []any{v, map[string]any{"c": v}}})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(out)
	}
	f.Add([]byte("a:\n- b: 1\n  c: [] # x\n-\n  d: 'e'\n"))
	f.Add([]byte("k: yes\nl: 012\nm: 1.5\nn: 0x1F\no: ~\np: \"q\"\nr: 12:30\n"))
	f.Add([]byte("a:\n-\n- 'x' # y\n- {}\n-\n  - b\n"))
}
