package manifest

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// readWith reads in as Read does, reading Lists item by item or whole.
func readWith(t *testing.T, in string, itemByItem bool) []Document {
	t.Helper()
	var docs []Document
	err := parts(strings.NewReader(in), "in.yaml", itemByItem, func(p Part) error {
		docs = append(docs, p.Documents()...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// A List read item by item gives the documents it gives read whole: the
// same objects, lines, indexes and errors.
func TestListReadItemByItemAsWhole(t *testing.T) {
	tests := map[string]string{
		"kubectl get -o yaml": `apiVersion: v1
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
  data:
    script: |
      #!/bin/sh
      - not an item
    quoted: "a
      b"
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: b}
kind: List
metadata:
  resourceVersion: ""
`,
		"indented items, comments, entries on their own line": `# a List
kind: List
apiVersion: v1
items:
  # first
  - apiVersion: v1
    kind: Secret
    metadata:
      name: a

  -
    # the second starts below its dash
    apiVersion: v1
    kind: Secret
    metadata:
      name: b
  - kind: NoAPIVersion
  - 7
  - - nested
metadata: {}
`,
		"anchored item":          "kind: List\nitems:\n- &x\n  apiVersion: v1\n  kind: A\n- !!map\n  apiVersion: v1\n  kind: B\n",
		"items last, CRLF":       "apiVersion: v1\r\nkind: List\r\nitems:\r\n- apiVersion: v1\r\n  kind: A\r\n- apiVersion: v1\r\n  kind: B\r\n",
		"items null":             "apiVersion: v1\nkind: List\nitems:\n# none\n",
		"items a mapping":        "apiVersion: v1\nkind: Thing\nitems:\n\n  a: b\n",
		"items:# is another key": "apiVersion: v1\nkind: A\nitems:#not a comment: 0\n",
		"items in flow":          "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: A}]\n",
		"documents around":       "apiVersion: v1\nkind: A\n---\nkind: List\nitems:\n- apiVersion: v1\n  kind: B\n---\napiVersion: v1\nkind: C\n",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			whole := readWith(t, in, false)
			byItem := readWith(t, in, true)
			if len(whole) == 0 || !reflect.DeepEqual(summarize(whole), summarize(byItem)) {
				t.Errorf("read whole:\n%s\nread item by item:\n%s", summarize(whole), summarize(byItem))
			}
		})
	}
}

// summarize prints what a reader of documents sees of them.
func summarize(docs []Document) string {
	var b strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&b, "%s err=%v", d.Position(), d.Err)
		if d.Object != nil {
			fmt.Fprintf(&b, " object=%v", d.Object.Object)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// A List read item by item reports an error where it is: in an item, or
// in what the List holds besides its items, at its line in the source.
func TestListReadItemByItemErrors(t *testing.T) {
	in := `apiVersion: v1
items:
- apiVersion: v1
  kind: A
  kind: B
- apiVersion: v1
  kind: C
  data: "unterminated
- &other
  apiVersion: v1
  kind: D
- <<: *other
kind: List
kind: List
`
	got := summarize(readWith(t, in, true))
	want := `in.yaml:3 (document 1, items[0]) err=yaml: line 5: key "kind" already set in map
in.yaml:6 (document 1, items[1]) err=yaml: line 9: found unexpected end of stream
in.yaml:9 (document 1, items[2]) err=<nil> object=map[apiVersion:v1 kind:D]
in.yaml:12 (document 1, items[3]) err=yaml: unknown anchor 'other' referenced (each item of a List is read on its own: an alias cannot name an anchor of another item)
in.yaml:1 (document 1) err=yaml: line 14: key "kind" already set in map
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A document, or an item of a List, over the limit is an error naming the
// limit, and the documents after it are read.
func TestReadRefusesLargeDocuments(t *testing.T) {
	annotation := strings.Repeat("x", MaxDocumentBytes)
	in := "apiVersion: v1\nkind: A\n---\n# big\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    big: " + annotation + "\n---\n" +
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: B\n- apiVersion: v1\n  kind: C\n  data:\n    big: " + annotation + "\n- apiVersion: v1\n  kind: D\n"
	docs, err := Read(strings.NewReader(in), "in.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := summarize(docs)
	want := `in.yaml:1 (document 1) err=<nil> object=map[apiVersion:v1 kind:A]
in.yaml:5 (document 2) err=larger than 3 MiB, the most kube-apiserver accepts in one request: not read
in.yaml:14 (document 3, items[0]) err=<nil> object=map[apiVersion:v1 kind:B]
in.yaml:16 (document 3, items[1]) err=items[1]: larger than 3 MiB, the most kube-apiserver accepts in one request: not read
in.yaml:20 (document 3, items[2]) err=<nil> object=map[apiVersion:v1 kind:D]
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Reading a source holds one document at a time: the items of a List are
// handed over as it is read.
func TestPartsHandsOverWhileReading(t *testing.T) {
	var in bytes.Buffer
	in.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := range 100_000 {
		fmt.Fprintf(&in, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%d\n", i)
	}
	size := in.Len()
	reader := &countingReader{r: &in}
	items := 0
	err := Parts(reader, "big.yaml", func(p Part) error {
		if items == 0 && reader.n > 128<<10 {
			t.Errorf("first item handed over after reading %d of %d bytes", reader.n, size)
		}
		items++
		return nil
	})
	if err != nil || items != 100_001 {
		t.Errorf("Parts: %v, %d parts; want 100,000 items and the List's remainder", err, items)
	}
}
