package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadDocuments(t *testing.T) {
	in := `# leading comment
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
data:
  enabled: yes
  version: 8.0
---
# only a comment: not a document
---   # a separator may carry a comment
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: b}
- kind: ConfigMap
---
{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "c"}, "data": {"n": 1.5}}
`
	docs, err := Read(strings.NewReader(in), "in.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		index, line int
		name, err   string
		position    string
	}
	wants := []want{
		{0, 2, "a", "", "in.yaml:2 (document 1)"},
		// Each item of a List at its own line and index.
		{1, 14, "b", "", "in.yaml:14 (document 2, items[0])"},
		{1, 17, "", "items[1]: apiVersion and kind are required: apiVersion missing", "in.yaml:17 (document 2, items[1])"},
		{2, 19, "c", "", "in.yaml:19 (document 3)"},
	}
	if len(docs) != len(wants) {
		t.Fatalf("got %d documents, want %d: %+v", len(docs), len(wants), docs)
	}
	for i, w := range wants {
		d := docs[i]
		gotErr := ""
		if d.Err != nil {
			gotErr = d.Err.Error()
		}
		gotName := ""
		if d.Object != nil {
			gotName = d.Object.GetName()
		}
		if d.Source != "in.yaml" || d.Index != w.index || d.Line != w.line || gotName != w.name || gotErr != w.err || d.Position() != w.position {
			t.Errorf("document %d = {%s %d %d %q %q %q}, want {in.yaml %d %d %q %q %q}", i, d.Source, d.Index, d.Line, gotName, gotErr, d.Position(), w.index, w.line, w.name, w.err, w.position)
		}
	}
	// YAML 1.1 as kubectl reads it: yes is a boolean, an unquoted 8.0 the integer 8.
	data := docs[0].Object.Object["data"].(map[string]any)
	if data["enabled"] != true || data["version"] != int64(8) {
		t.Errorf("data = %#v, want enabled=true version=int64(8)", data)
	}
	if n := docs[3].Object.Object["data"].(map[string]any)["n"]; n != 1.5 {
		t.Errorf("JSON float = %#v, want 1.5", n)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // per document error, "" for none
	}{
		{
			name: "syntax error is reported at its line in the file, later documents still read",
			in:   "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\nmetadata:\n  name: [\n---\napiVersion: v1\nkind: C\n",
			want: []string{"", "yaml: line 7: did not find expected node content", ""},
		},
		{
			name: "duplicate key",
			in:   "apiVersion: v1\nkind: A\nkind: B\n",
			want: []string{`yaml: line 3: key "kind" already set in map`},
		},
		{
			name: "duplicate keys",
			in:   "apiVersion: v1\nkind: A\nkind: B\nmetadata: {}\nmetadata: {}\n",
			want: []string{`yaml: line 3: key "kind" already set in map; line 5: key "metadata" already set in map`},
		},
		{
			name: "missing apiVersion and kind",
			in:   "metadata:\n  name: x\n",
			want: []string{"apiVersion and kind are required: apiVersion and kind missing"},
		},
		{
			name: "scalar document",
			in:   "just a string\n",
			want: []string{"a string, not an object"},
		},
		{
			name: "list document",
			in:   "- a\n- b\n",
			want: []string{"a list, not an object"},
		},
		{
			name: "a List item that is not an object",
			in:   "apiVersion: v1\nkind: List\nitems: [7]\n",
			want: []string{"items[0]: a number, not an object"},
		},
		{
			name: "null document",
			in:   "null\n",
			want: []string{"null, not an object"},
		},
		// The YAML parser reads a JSON document and ignores what follows.
		{
			name: "text after a JSON document",
			in:   "\n{\"apiVersion\": \"v1\", \"kind\": \"A\"} trailing garbage\n",
			want: []string{`json: line 2: "trailing garbage" after the end of the JSON document; separate documents with a --- line`},
		},
		{
			name: "two JSON documents without a separator",
			in:   "{\"apiVersion\": \"v1\", \"kind\": \"A\"}\n# a comment\n{\"apiVersion\": \"v1\", \"kind\": \"B\", \"metadata\": {\"name\": \"a-long-name-to-cut\"}}\n",
			want: []string{`json: line 3: "{\"apiVersion\": \"v1\", \"kind\": \"B\", \"metad..." after the end of the JSON document; separate documents with a --- line`},
		},
		{
			name: "a stray brace",
			in:   "{\"apiVersion\": \"v1\", \"kind\": \"A\"}}\n",
			want: []string{`json: line 1: "}" after the end of the JSON document; separate documents with a --- line`},
		},
		{
			name: "JSON then a comment and a separator",
			in:   "{\"apiVersion\": \"v1\", \"kind\": \"A\"}\n# end\n---\n{\"apiVersion\": \"v1\", \"kind\": \"B\"}\n",
			want: []string{"", ""},
		},
		{
			name: "flow YAML is YAML",
			in:   "{apiVersion: v1, kind: A}\n",
			want: []string{""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := Read(strings.NewReader(tt.in), "f.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != len(tt.want) {
				t.Fatalf("got %d documents, want %d", len(docs), len(tt.want))
			}
			for i, w := range tt.want {
				got := ""
				if docs[i].Err != nil {
					got = docs[i].Err.Error()
				}
				if got != w {
					t.Errorf("document %d error = %q, want %q", i, got, w)
				}
				if (docs[i].Object == nil) != (w != "") {
					t.Errorf("document %d: Object set = %v with error %q", i, docs[i].Object != nil, got)
				}
			}
		})
	}
}

func TestReadRejectsBinaryAndHugeSources(t *testing.T) {
	if _, err := Read(bytes.NewReader([]byte("\x7fELF\x00\x01")), "a.out"); err == nil || err.Error() != "a.out: binary data, not a YAML or JSON manifest" {
		t.Errorf("binary: err = %v", err)
	}
	huge := repeatedBytes('#', MaxSourceBytes+1)
	if _, err := Read(huge, "big.yaml"); err == nil || err.Error() != "big.yaml: larger than 64 MiB; split it into smaller files" {
		t.Errorf("huge: err = %v", err)
	}
}

func TestReadPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.yaml", "apiVersion: v1\nkind: B\n")
	write("a/x.json", `{"apiVersion":"v1","kind":"X"}`)
	write("a/notes.txt", "not a manifest")
	write("c.YML", "apiVersion: v1\nkind: C\n")

	docs, err := ReadPaths(strings.NewReader("apiVersion: v1\nkind: Stdin\n"), dir, "-")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		rel, _ := filepath.Rel(dir, d.Source)
		if d.Source == "-" {
			rel = "-"
		}
		got = append(got, rel+"="+d.Object.GetKind())
	}
	if want := "a/x.json=X b.yaml=B c.YML=C -=Stdin"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}

	if _, err := ReadPaths(nil, filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml: no such file or directory") {
		t.Errorf("missing path: err = %v", err)
	}
}

// A directory given as a symlink is walked, and its files keep the name
// the user gave.
func TestReadPathsFollowsASymlinkedDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "crds")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "widget.yaml"), []byte("apiVersion: v1\nkind: Widget\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	docs, err := ReadPaths(nil, link)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Source != filepath.Join(link, "widget.yaml") || docs[0].Object.GetKind() != "Widget" {
		t.Errorf("documents of the symlinked directory: %+v", docs)
	}
}

// repeatedBytes returns a reader of n copies of b without allocating them twice.
func repeatedBytes(b byte, n int) *bytes.Reader {
	return bytes.NewReader(bytes.Repeat([]byte{b}, n))
}
