package manifest

import (
	"strings"
	"testing"
)

func TestFieldPositions(t *testing.T) {
	// Leading comments and a first document shift the second document's
	// lines, so that a position counted within the document, not the file,
	// shows.
	const source = `# a comment before anything
apiVersion: v1
kind: ConfigMap
metadata:
  name: first
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: second
  labels:
    app: web
    example.com/tier: "1"
  annotations: {a.b/c: x, "d[0]": y}
spec:
  nested:
    deeper:
      leaf: 3
  containers:
  - name: main
    image: nginx
  -   name: sidecar
      ports: [{containerPort: 80}, {containerPort: 443}]
  matrix:
  - - 1
    - 2
  flow: {list: [a, b, {k: v}]}
`
	docs, err := Read(strings.NewReader(source), "widgets.yaml")
	if err != nil || len(docs) != 2 {
		t.Fatalf("Read: %d documents, %v", len(docs), err)
	}
	pos := docs[1].FieldPositions()
	for _, tc := range []struct {
		path string
		want Position
	}{
		{"kind", Position{8, 1}},
		{"metadata.name", Position{10, 3}},
		{"metadata.labels[app]", Position{12, 5}},
		{"metadata.labels[example.com/tier]", Position{13, 5}},
		{"metadata.annotations[a.b/c]", Position{14, 17}},
		{"metadata.annotations[d[0]]", Position{14, 27}},
		{"spec.nested.deeper.leaf", Position{18, 7}},
		{"spec.containers", Position{19, 3}},
		{"spec.containers[0]", Position{20, 5}},
		{"spec.containers[0].image", Position{21, 5}},
		{"spec.containers[1].name", Position{22, 7}},
		{"spec.containers[1].ports[1].containerPort", Position{23, 37}},
		{"spec.matrix[0][1]", Position{26, 7}},
		{"spec.flow.list[2].k", Position{27, 24}},
		// Paths below what the document has: the nearest ancestor.
		{"spec.containers[0].resources.limits.memory", Position{20, 5}},
		{"spec.containers[7].image", Position{19, 3}},
		{"spec.containers.name", Position{19, 3}},
		{"spec.nested[0]", Position{16, 3}},
		{"metadata.labels[team]", Position{11, 3}},
		// Nothing of the path there, or the root: the document as a whole.
		{"status.phase", Position{}},
		{"<nil>", Position{}},
		{"", Position{}},
	} {
		if got := pos.Of(tc.path); got != tc.want {
			t.Errorf("Of(%q) = %+v, want %+v", tc.path, got, tc.want)
		}
	}
	if got := docs[0].FieldPositions().Of("metadata.name"); got != (Position{5, 3}) {
		t.Errorf("first document: Of(metadata.name) = %+v, want {5 3}", got)
	}
	for _, tc := range []struct {
		path, want string
		ok         bool
	}{
		{"spec.containers[1].name", "sidecar", true},
		{"metadata.labels[example.com/tier]", "1", true},
		{"spec.nested.deeper.leaf", "3", true},
		// Not a scalar, or not there: no nearest ancestor for a value.
		{"spec.containers[1]", "", false},
		{"spec.containers[1].image", "", false},
	} {
		if got, ok := pos.Scalar(tc.path); got != tc.want || ok != tc.ok {
			t.Errorf("Scalar(%q) = %q, %v, want %q, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFieldPositionsJSON(t *testing.T) {
	const source = `{
  "apiVersion": "example.com/v1",
  "kind": "Widget",
  "metadata": {"name": "w", "labels": {"app": "web"}},
  "spec": {
    "replicas": 10,
    "items": [
      {"name": "a"},
      {"name": "b"}
    ]
  }
}
`
	docs, err := Read(strings.NewReader(source), "widget.json")
	if err != nil || len(docs) != 1 {
		t.Fatalf("Read: %d documents, %v", len(docs), err)
	}
	pos := docs[0].FieldPositions()
	for path, want := range map[string]Position{
		"spec.replicas":        {6, 5},
		"metadata.labels[app]": {4, 40},
		"spec.items[1].name":   {9, 8},
		"spec.items[1]":        {9, 7},
	} {
		if got := pos.Of(path); got != want {
			t.Errorf("Of(%q) = %+v, want %+v", path, got, want)
		}
	}
}

func TestFieldPositionsMergeKeys(t *testing.T) {
	const source = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
base: &base
  size: 1
spec:
  <<: *base
  own: 2
`
	docs, err := Read(strings.NewReader(source), "merge.yaml")
	if err != nil || len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("Read: %v %+v", err, docs)
	}
	pos := docs[0].FieldPositions()
	// A merged field is written where its anchor is.
	if got := pos.Of("spec.size"); got != (Position{6, 3}) {
		t.Errorf("Of(spec.size) = %+v, want {6 3}", got)
	}
	if got := pos.Of("spec.own"); got != (Position{9, 3}) {
		t.Errorf("Of(spec.own) = %+v, want {9 3}", got)
	}
}

// TestFieldPositionsNothingToLookIn covers the documents without text of
// their own: List items and documents that did not parse find nothing, and
// never panic.
func TestFieldPositionsNothingToLookIn(t *testing.T) {
	const list = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: a}
`
	docs, err := Read(strings.NewReader(list), "list.yaml")
	if err != nil || len(docs) != 1 {
		t.Fatalf("Read: %d documents, %v", len(docs), err)
	}
	if got := docs[0].FieldPositions().Of("metadata.name"); got != (Position{}) {
		t.Errorf("List item: Of(metadata.name) = %+v, want zero", got)
	}
	broken := Document{Source: "x.yaml", Line: 3, Raw: []byte("a: [\n")}
	if got := broken.FieldPositions().Of("a"); got != (Position{}) {
		t.Errorf("unparsable: Of(a) = %+v, want zero", got)
	}
	scalar := Document{Source: "x.yaml", Line: 3, Raw: []byte("just text\n")}
	if got := scalar.FieldPositions().Of("a"); got != (Position{}) {
		t.Errorf("scalar: Of(a) = %+v, want zero", got)
	}
	var none *FieldPositions
	if got := none.Of("a"); got != (Position{}) {
		t.Errorf("nil: Of(a) = %+v, want zero", got)
	}
}

func TestSplitFieldPath(t *testing.T) {
	for path, want := range map[string]string{
		"spec.containers[0].image":       "spec containers [0] image",
		"metadata.annotations[a.b/c]":    "metadata annotations [a.b/c]",
		"metadata.annotations[x]y].z":    "metadata annotations [x]y] z",
		"spec.m[0][1]":                   "spec m [0] [1]",
		"spec.unterminated[abc":          "spec unterminated [abc]",
		"<nil>":                          "",
		"metadata.labels[app.kubernetes": "metadata labels [app.kubernetes]",
	} {
		var got []string
		for _, s := range splitFieldPath(path) {
			if s.subscript {
				got = append(got, "["+s.name+"]")
			} else {
				got = append(got, s.name)
			}
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("splitFieldPath(%q) = %q, want %q", path, g, want)
		}
	}
}
