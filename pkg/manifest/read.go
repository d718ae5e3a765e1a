package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// MaxSourceBytes bounds how much of one source is read, so a wrong path (a
// disk image, a log) fails fast instead of filling memory. The API server
// itself refuses request bodies over 3 MiB; a manifest bundle may hold many.
const MaxSourceBytes = 64 << 20

// ReadPaths reads every path in order: files, directories (walked
// recursively for Extensions, in lexical order) and "-" for stdin. A path
// that cannot be read at all is an error, and so is a file in a directory
// that is not a regular file (a named pipe would block the read for ever);
// a document that cannot be decoded is returned with its Err set.
func ReadPaths(stdin io.Reader, paths ...string) ([]Document, error) {
	var docs []Document
	err := EachDocument(stdin, paths, func(d Document) error {
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// EachDocument reads paths as ReadPaths does, handing each document to
// yield as it is decoded instead of keeping them all; it stops at the
// first error, of a source or of yield.
func EachDocument(stdin io.Reader, paths []string, yield func(Document) error) error {
	sources, err := Walk(paths, WalkOptions{})
	if err != nil {
		return err
	}
	each := func(p Part) error {
		for _, d := range p.Documents() {
			if err := yield(d); err != nil {
				return err
			}
		}
		return nil
	}
	for _, source := range sources {
		switch {
		case source.Err != nil:
			return source.Err
		case source.Skip != "":
			return &SourceError{Source: source.Path, Err: errors.New(source.Skip)}
		case source.Path == "-":
			err = Parts(stdin, "-", each)
		default:
			err = FileParts(source.Path, each)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// SourceError is why a whole source could not be read: it names the source
// and says why, as "path: reason".
type SourceError struct {
	Source string
	Err    error
}

func (e *SourceError) Error() string { return e.Source + ": " + e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// ReadFile reads the documents of one file.
func ReadFile(path string) ([]Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	return Read(f, path)
}

// openError names the file and says why it could not be opened, a dangling
// symbolic link by its target.
func openError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if target, lerr := os.Readlink(path); lerr == nil {
			return &SourceError{Source: path, Err: fmt.Errorf("symbolic link to %s, which does not exist", target)}
		}
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err
	}
	return &SourceError{Source: path, Err: err}
}

// Read reads the documents of one source.
func Read(r io.Reader, source string) ([]Document, error) {
	var docs []Document
	err := Parts(r, source, func(p Part) error {
		docs = append(docs, p.Documents()...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// isBinary looks for a NUL byte near the start, as git does: text formats
// never contain one, so nothing after it can be a manifest either.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0
}

func isSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := bytes.TrimSpace(line[3:])
	return len(rest) == 0 || rest[0] == '#'
}

func isContent(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("..."))
}

// yamlLine finds the line number the YAML parser puts in its errors, which
// counts from the start of the document, not of the file.
var yamlLine = regexp.MustCompile(`line (\d+)`)

func decode(source string, index, line int, data []byte) []Document {
	doc := Document{Source: source, Index: index, Line: line}
	obj, err := decodeObject(data)
	if err != nil {
		doc.Err = decodeError(err, data, func(n int) int { return line + n - 1 })
		return []Document{doc}
	}
	doc.Object, doc.Raw = obj, data
	if !obj.IsList() {
		if err := checkTypeMeta(obj.Object); err != nil {
			doc.Object, doc.Err = nil, err
		}
		return []Document{doc}
	}
	return listItems(doc, obj)
}

// decodeError is the parser's error on one line, at the line in the
// source (sourceLine maps a line of data to it).
func decodeError(err error, data []byte, sourceLine func(int) int) error {
	msg := yamlLine.ReplaceAllStringFunc(oneLine(err.Error()), func(m string) string {
		n, _ := strconv.Atoi(m[len("line "):])
		return "line " + strconv.Itoa(sourceLine(n))
	})
	// The parser's words ("did not find expected node content") do
	// not say that the document is a template, which it cannot be.
	if bytes.Contains(data, []byte("{{")) {
		msg += " " + HelmTemplateHint
	}
	return errors.New(msg)
}

// HelmTemplateHint ends the error of a document that does not decode and
// holds Helm template actions ("{{"), naming the step that makes it YAML.
const HelmTemplateHint = "(the document holds Helm template actions: render it with helm template first)"

// oneLine puts the YAML parser's list of errors ("yaml: unmarshal
// errors:" then one indented line each, as for a duplicate key) on one
// line, which every output prints as is: the text output would show its
// line breaks as a literal \n.
func oneLine(msg string) string {
	const list = "yaml: unmarshal errors:\n"
	if !strings.HasPrefix(msg, list) {
		return msg
	}
	causes := strings.Split(strings.TrimPrefix(msg, list), "\n")
	for i, c := range causes {
		causes[i] = strings.TrimSpace(c)
	}
	return "yaml: " + strings.Join(causes, "; ")
}

func decodeObject(data []byte) (*unstructured.Unstructured, error) {
	content, err := decodeYAML(data)
	if err != nil {
		return nil, err
	}
	object, ok := content.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s, not an object", jsonKind(content))
	}
	return &unstructured.Unstructured{Object: object}, nil
}

// jsonKind names what a decoded JSON value is, in JSON's words.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	}
	return "a number"
}

// refuseAfterJSON refuses text after a JSON document. The YAML parser
// reads a JSON document as a flow collection and ignores whatever follows
// it, so a second object appended to a JSON file, or a stray brace, would
// be dropped in silence. Text that is not JSON from its first byte is
// YAML, which the parser reads whole.
func refuseAfterJSON(data []byte) error {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil // flow YAML rather than JSON ({a: 1}): the YAML parser's
	}
	end := len(data) - len(trimmed) + int(dec.InputOffset())
	for i, line := range bytes.SplitAfter(data[end:], []byte("\n")) {
		rest := bytes.TrimSpace(line)
		if len(rest) == 0 || rest[0] == '#' {
			continue
		}
		n := bytes.Count(data[:end], []byte("\n")) + 1 + i
		if len(rest) > 40 {
			rest = append(rest[:40:40], "..."...)
		}
		return fmt.Errorf("json: line %d: %q after the end of the JSON document; separate documents with a --- line", n, rest)
	}
	return nil
}

func listItems(list Document, obj *unstructured.Unstructured) []Document {
	items, _, err := unstructured.NestedSlice(obj.Object, "items")
	if err != nil {
		list.Object, list.Err = nil, fmt.Errorf("%s items: %w", obj.GetKind(), err)
		return []Document{list}
	}
	// Each item is found at its own line; its text is the List's, so it
	// keeps no Raw of its own.
	positions := list.FieldPositions()
	docs := make([]Document, len(items))
	for i, item := range items {
		doc := Document{Source: list.Source, Index: list.Index, InList: true, Item: i, Line: list.Line}
		if line := positions.Of(fmt.Sprintf("items[%d]", i)).Line; line > 0 {
			doc.Line = line
		}
		docs[i] = listItem(doc, item)
	}
	return docs
}

// listItem sets the object (or the error) of doc, item doc.Item of a List.
func listItem(doc Document, item any) Document {
	if m, ok := item.(map[string]any); !ok {
		doc.Err = fmt.Errorf("items[%d]: %s, not an object", doc.Item, jsonKind(item))
	} else if err := checkTypeMeta(m); err != nil {
		doc.Err = fmt.Errorf("items[%d]: %w", doc.Item, err)
	} else {
		doc.Object = &unstructured.Unstructured{Object: m}
	}
	return doc
}

// decodeItem decodes an item of a List read item by item: its text is a
// one-item block sequence. Like the items of a List read whole, it keeps
// no Raw.
func decodeItem(p Part) Document {
	doc := Document{Source: p.Source, Index: p.Index, InList: true, Item: p.Item, Line: itemLine(p)}
	decoded, err := decodeYAML(p.data)
	if err != nil {
		doc.Err = decodeError(err, p.data, func(n int) int { return p.Line + n - 1 })
		if strings.Contains(err.Error(), "unknown anchor") {
			doc.Err = fmt.Errorf("%w %s", doc.Err, itemAnchorHint)
		}
		return doc
	}
	content, ok := decoded.([]any)
	if !ok || len(content) != 1 {
		doc.Err = fmt.Errorf("items[%d]: not one item of a block sequence", p.Item)
		return doc
	}
	return listItem(doc, content[0])
}

// itemAnchorHint ends the error of a List item whose alias names an
// anchor of another item.
const itemAnchorHint = "(each item of a List is read on its own: an alias cannot name an anchor of another item)"

// itemLine is the line of an item's content, where a List read whole
// finds it: the line of its "- " unless nothing but a comment follows
// the dash there. An item starting with an anchor or a tag is found by
// the parser that finds the others.
func itemLine(p Part) int {
	data := p.data
	for n := p.Line; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		content := bytes.TrimLeft(line, " ")
		if n == p.Line {
			content = bytes.TrimLeft(content[1:], " ") // after the "-"
		}
		switch {
		case len(content) == 0 || content[0] == '#':
			continue
		case content[0] == '&' || content[0] == '!':
			doc := Document{Line: p.Line, Raw: p.data}
			if line := doc.FieldPositions().Of("[0]").Line; line > 0 {
				return line
			}
			return p.Line
		}
		return n
	}
	return p.Line
}

// decodeListRest decodes what a List read item by item holds besides its
// items, which must be well formed as for a List read whole.
func decodeListRest(p Part) error {
	_, err := decodeObject(p.data)
	if err == nil {
		return nil
	}
	return decodeError(err, p.data, func(n int) int {
		if n <= p.headerLines {
			return p.Line + n - 1
		}
		return p.trailerLine + n - p.headerLines - 1
	})
}

// ErrNoTypeMeta is the error of a document without apiVersion or kind.
var ErrNoTypeMeta = errors.New("apiVersion and kind are required")

// checkTypeMeta rejects what the API server could not route: without
// apiVersion and kind there is no schema to validate against.
func checkTypeMeta(obj map[string]any) error {
	var missing []string
	if v, ok := obj["apiVersion"].(string); !ok || v == "" {
		missing = append(missing, "apiVersion")
	}
	if v, ok := obj["kind"].(string); !ok || v == "" {
		missing = append(missing, "kind")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s missing", ErrNoTypeMeta, strings.Join(missing, " and "))
	}
	return nil
}
