package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxDocumentBytes bounds the text of one document, and of one item of a
// List read item by item. kube-apiserver refuses a request body over
// 3 MiB (and etcd stores objects of at most 1.5 MiB), so a larger
// document could never be created as it is; decoding one takes about 14
// times its size. Such a document is an error, never a pass.
const MaxDocumentBytes = 3 << 20

// errDocumentTooLarge is the error of a document over MaxDocumentBytes.
var errDocumentTooLarge = fmt.Errorf("larger than %d MiB, the most kube-apiserver accepts in one request: not read", MaxDocumentBytes>>20)

// Part is a piece of a source that decodes on its own: a document, or an
// item of a List in block style. A source is split into parts as it is
// read, so that its documents can be decoded one at a time, in parallel,
// and dropped once checked: the memory a source takes does not grow with
// the objects it holds.
type Part struct {
	// Source, Index, InList, Item and Line are as in Document; Line is
	// the part's first line, which for a List item Documents refines to
	// the item's content.
	Source string
	Index  int
	InList bool
	Item   int
	Line   int

	kind partKind
	data []byte
	// err is why the part cannot be decoded (partFailed).
	err error
	// headerLines and trailerLine map the lines of a List's remainder
	// (partListRest) back to the source: its first headerLines lines are
	// the source's from Line on, the others the source's from trailerLine.
	headerLines, trailerLine int
}

type partKind int

const (
	// partDocument is a whole document.
	partDocument partKind = iota
	// partItem is one item of a List read item by item: a one-item
	// block sequence.
	partItem
	// partListRest is what a List read item by item holds besides its
	// items, with an empty "items:": it decodes to nothing or an error.
	partListRest
	// partFailed is a document or item that is not decoded, with err.
	partFailed
)

// Documents decodes the part: the document, the items of a List read
// whole, an item, or nothing when the remainder of a List is well formed.
func (p Part) Documents() []Document {
	switch p.kind {
	case partDocument:
		return decode(p.Source, p.Index, p.Line, p.data)
	case partItem:
		return []Document{decodeItem(p)}
	case partListRest:
		if err := decodeListRest(p); err != nil {
			return []Document{{Source: p.Source, Index: p.Index, Line: p.Line, Err: err}}
		}
		return nil
	}
	return []Document{{Source: p.Source, Index: p.Index, InList: p.InList, Item: p.Item, Line: p.Line, Err: p.err}}
}

// FileParts is Parts of the file at path. A regular file larger than
// MaxSourceBytes is refused before any of its parts.
func FileParts(path string, yield func(Part) error) error {
	f, err := os.Open(path)
	if err != nil {
		return openError(path, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() > MaxSourceBytes {
		return sourceTooLarge(path)
	}
	return Parts(f, path, yield)
}

// Parts reads one source and hands its parts to yield in order as it
// reads, holding at most one document's text (or one item's) at a time.
// It stops at the first error of yield and returns it. A source that
// cannot be read, is binary, or turns out larger than MaxSourceBytes is a
// SourceError, returned after the parts before it were handed over.
func Parts(r io.Reader, source string, yield func(Part) error) error {
	return parts(r, source, true, yield)
}

// parts is Parts reading Lists item by item or, in tests, whole.
func parts(r io.Reader, source string, itemByItem bool, yield func(Part) error) error {
	counted := &countingReader{r: io.LimitReader(r, MaxSourceBytes+1)}
	br := bufio.NewReaderSize(counted, 64<<10)
	head, err := br.Peek(8 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return readError(source, err)
	}
	if isBinary(head) {
		return &SourceError{Source: source, Err: errors.New("binary data, not a YAML or JSON manifest")}
	}
	s := &splitter{source: source, yield: yield, itemByItem: itemByItem}
	for n := 1; ; n++ {
		line, err := s.readLine(br)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return readError(source, err)
		}
		if counted.n > MaxSourceBytes {
			return sourceTooLarge(source)
		}
		if err := s.line(n, line); err != nil {
			return err
		}
	}
	if counted.n > MaxSourceBytes {
		return sourceTooLarge(source)
	}
	return s.flush()
}

func sourceTooLarge(source string) error {
	return &SourceError{Source: source, Err: fmt.Errorf("larger than %d MiB; split it into smaller files", MaxSourceBytes>>20)}
}

func readError(source string, err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err // the source names the file already
	}
	return &SourceError{Source: source, Err: err}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// splitter cuts a YAML stream at "---" separator lines, as kubectl does,
// keeping the line each document's content starts at. A chunk with
// nothing but comments and blank lines is not a document.
type splitter struct {
	source string
	yield  func(Part) error
	// itemByItem reads Lists item by item; tests compare with reading
	// them whole.
	itemByItem bool
	// index is the index of the document being read.
	index int
	// lineBuf holds the line being read.
	lineBuf []byte

	// start is the document's first content line, 0 before it.
	start int
	// text is the document's text from start, while it fits in
	// MaxDocumentBytes.
	text []byte
	// tooLarge marks a document over MaxDocumentBytes that is not read.
	tooLarge bool
	// mapping tells a document that starts with a key at column 0, which
	// may be a List to read item by item.
	mapping bool
	// list reads the document item by item once it has an "items:" key
	// at column 0.
	list *listSplitter
}

// readLine reads one line without its end ("\n" or "\r\n"). A line longer
// than MaxDocumentBytes is cut there: its document is too large anyway,
// and its start still tells a separator.
func (s *splitter) readLine(br *bufio.Reader) ([]byte, error) {
	s.lineBuf = s.lineBuf[:0]
	for {
		frag, err := br.ReadSlice('\n')
		if room := MaxDocumentBytes + 1 - len(s.lineBuf); room > 0 {
			s.lineBuf = append(s.lineBuf, frag[:min(len(frag), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (!errors.Is(err, io.EOF) || len(s.lineBuf) == 0) {
			return nil, err
		}
		line := bytes.TrimSuffix(s.lineBuf, []byte("\n"))
		return bytes.TrimSuffix(line, []byte("\r")), nil
	}
}

func (s *splitter) line(n int, text []byte) error {
	if isSeparator(text) {
		return s.flush()
	}
	if s.start == 0 {
		if !isContent(text) {
			return nil // leading comments are not part of a document's position
		}
		s.start, s.mapping = n, s.itemByItem && startsMapping(text)
	}
	switch {
	case s.list != nil:
		err := s.list.line(n, text)
		if !errors.Is(err, errNotBlockList) {
			return err
		}
		// Read whole after all, from the text kept so far.
		s.text, s.tooLarge, s.list, s.mapping = s.list.rest, s.list.restTooBig, nil, false
		return s.line(n, text)
	case s.tooLarge:
		return nil
	case len(s.text)+len(text)+1 > MaxDocumentBytes:
		s.text, s.tooLarge = nil, true
		return nil
	}
	s.text = append(append(s.text, text...), '\n')
	if s.mapping && isItemsKey(text) {
		s.list = &listSplitter{s: s, index: s.index, start: s.start, seqIndent: -1, rest: s.text, headerLines: n - s.start + 1}
		s.text = nil
	}
	return nil
}

// flush hands over the document read so far.
func (s *splitter) flush() error {
	if s.start == 0 {
		return nil
	}
	p := Part{Source: s.source, Index: s.index, Line: s.start, kind: partDocument, data: s.text}
	list, tooLarge := s.list, s.tooLarge
	s.index++
	s.start, s.text, s.tooLarge, s.list, s.mapping = 0, nil, false, nil, false
	switch {
	case list != nil && list.seqIndent >= 0:
		return list.end()
	case list != nil:
		// "items:" without a block sequence: read whole.
		p.data, tooLarge = list.rest, list.restTooBig
	}
	if tooLarge {
		p.kind, p.data, p.err = partFailed, nil, errDocumentTooLarge
	}
	return s.yield(p)
}

// startsMapping tells whether a document's text starts with a key of a
// block mapping at column 0, as a List written by kubectl does.
func startsMapping(text []byte) bool {
	first, _, _ := bytes.Cut(text, []byte("\n"))
	if len(first) == 0 || bytes.IndexByte(first, ':') < 0 {
		return false
	}
	return bytes.IndexByte([]byte(" \t-?[{\"'|>!&*%@`#"), first[0]) < 0
}
