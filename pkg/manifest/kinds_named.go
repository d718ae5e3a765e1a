package manifest

import (
	"bufio"
	"bytes"
	"io"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// KindsNamed lists, once each and in order of first appearance, the
// kinds that the block YAML in r names at the top level of its documents
// and of the items of a List written as kubectl get -o yaml writes it. It
// reads line by line, holding one line at a time, and decodes nothing: it
// is a hint for work worth starting before the documents are decoded
// (compiling the validators they will need), never a verdict. A document
// in flow style or JSON names nothing here, and a kind named here may not
// decode.
func KindsNamed(r io.Reader) ([]schema.GroupVersionKind, error) {
	var kinds []schema.GroupVersionKind
	seen := map[schema.GroupVersionKind]bool{}
	// doc is the document's own apiVersion and kind, item those of the
	// List item being read.
	var doc, item [2]string
	inItems := false
	record := func(named [2]string) {
		if named[0] == "" || named[1] == "" {
			return
		}
		gvk := schema.FromAPIVersionAndKind(named[0], named[1])
		if !seen[gvk] {
			seen[gvk] = true
			kinds = append(kinds, gvk)
		}
	}
	lines := bufio.NewReader(r)
	for {
		line, err := lines.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer names no kind: skip its rest.
			for err == bufio.ErrBufferFull {
				_, err = lines.ReadSlice('\n')
			}
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case bytes.Equal(line, []byte("---")) || bytes.HasPrefix(line, []byte("--- ")):
			record(doc)
			doc, item, inItems = [2]string{}, [2]string{}, false
		case len(line) > 0 && line[0] != ' ' && line[0] != '-' && line[0] != '#':
			// A key of the document itself.
			inItems = bytes.HasPrefix(line, []byte("items:"))
			typeField(line, &doc)
		case inItems && bytes.HasPrefix(line, []byte("- ")):
			record(item)
			item = [2]string{}
			typeField(line[2:], &item)
		case inItems && bytes.HasPrefix(line, []byte("  ")) && len(line) > 2 && line[2] != ' ':
			typeField(line[2:], &item)
		}
		if err != nil {
			record(item)
			record(doc)
			if err == io.EOF {
				return kinds, nil
			}
			return kinds, err
		}
	}
}

// typeField sets named's apiVersion or kind from line, a key and a plain
// or quoted value, when line holds one of them.
func typeField(line []byte, named *[2]string) {
	for i, key := range []string{"apiVersion:", "kind:"} {
		value, ok := bytes.CutPrefix(line, []byte(key))
		if !ok || len(value) == 0 || value[0] != ' ' {
			continue
		}
		value, _, _ = bytes.Cut(value, []byte(" #"))
		value = bytes.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		named[i] = string(value)
	}
}
