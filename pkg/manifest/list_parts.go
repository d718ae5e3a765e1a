package manifest

import (
	"bytes"
	"errors"
	"fmt"
)

// errNotBlockList is why a document cannot be read item by item: its
// "items" is not a block sequence.
var errNotBlockList = errors.New("items is not a block sequence")

// listSplitter reads a List item by item, as kubectl get -A -o yaml
// writes it: a block mapping at column 0 whose "items:" key is followed
// by a block sequence. Each line at the sequence's indentation that
// starts with "- " starts an item, and a line indented less (or as much,
// without "- ") ends the sequence. No line of an item can be mistaken for
// either: a block scalar's lines are indented more than its key, and a
// quoted or flow scalar cut there leaves its item unterminated, which is
// then an error of that item, never a silent pass. Decoding each item on
// its own, a List takes the memory of one item, not of all.
//
// What the List holds besides its items (its header, up to "items:",
// and its trailer) is decoded at the end with the items left out, so
// that an error there is reported as it would be for the whole List.
// An "items:" that is not a block sequence is read whole, as any other
// document.
type listSplitter struct {
	s *splitter
	// index and start are the List's document index and first line.
	index, start int
	// seqIndent is the indentation of the items' "- ", -1 before the
	// first.
	seqIndent int
	trailer   bool

	// rest is the header and the trailer; headerLines counts the
	// header's lines, trailerLine is the trailer's first line.
	rest        []byte
	headerLines int
	trailerLine int
	restTooBig  bool

	// item is the text of the item being read, from its line itemLine;
	// items counts the items before it.
	item        []byte
	itemLine    int
	itemTooBig  bool
	items       int
	readingItem bool
}

func (l *listSplitter) line(n int, text []byte) error {
	if l.trailer {
		l.addRest(text)
		return nil
	}
	if !isContent(text) {
		if l.readingItem {
			l.addItem(text)
		} else {
			l.addRest(text)
			l.headerLines++
		}
		return nil
	}
	indent := len(text) - len(bytes.TrimLeft(text, " "))
	entry := isEntry(text[indent:])
	if l.seqIndent < 0 {
		if !entry {
			return errNotBlockList
		}
		l.seqIndent = indent
	}
	switch {
	case indent > l.seqIndent:
		l.addItem(text)
		return nil
	case indent == l.seqIndent && entry:
		if err := l.endItem(); err != nil {
			return err
		}
		l.readingItem, l.itemLine = true, n
		l.addItem(text)
		return nil
	}
	if err := l.endItem(); err != nil {
		return err
	}
	l.trailer, l.trailerLine = true, n
	l.addRest(text)
	return nil
}

// isItemsKey tells the "items:" key at column 0 with its value on the
// lines below.
func isItemsKey(text []byte) bool {
	rest, ok := bytes.CutPrefix(text, []byte("items:"))
	if !ok || len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return false
	}
	// A comment starts after white space: "items:#x" is another key.
	rest = bytes.TrimLeft(rest, " \t")
	return len(rest) == 0 || rest[0] == '#'
}

// isEntry tells a block sequence entry: "-" then a space or nothing.
func isEntry(text []byte) bool {
	return len(text) > 0 && text[0] == '-' && (len(text) == 1 || text[1] == ' ')
}

func (l *listSplitter) addRest(text []byte) {
	if l.restTooBig {
		return
	}
	if len(l.rest)+len(text)+1 > MaxDocumentBytes {
		l.rest, l.restTooBig = nil, true
		return
	}
	l.rest = append(append(l.rest, text...), '\n')
}

func (l *listSplitter) addItem(text []byte) {
	if l.itemTooBig {
		return
	}
	if len(l.item)+len(text)+1 > MaxDocumentBytes {
		l.item, l.itemTooBig = nil, true
		return
	}
	l.item = append(append(l.item, text...), '\n')
}

// endItem hands over the item read so far.
func (l *listSplitter) endItem() error {
	if !l.readingItem {
		return nil
	}
	p := Part{Source: l.s.source, Index: l.index, InList: true, Item: l.items, Line: l.itemLine, kind: partItem, data: l.item}
	if l.itemTooBig {
		p.kind, p.data, p.err = partFailed, nil, fmt.Errorf("items[%d]: %w", l.items, errDocumentTooLarge)
	}
	l.items++
	l.item, l.itemTooBig, l.readingItem = nil, false, false
	return l.s.yield(p)
}

// end hands over the last item and the List's remainder.
func (l *listSplitter) end() error {
	if err := l.endItem(); err != nil {
		return err
	}
	p := Part{Source: l.s.source, Index: l.index, Line: l.start, kind: partListRest, data: l.rest,
		headerLines: l.headerLines, trailerLine: l.trailerLine}
	if l.restTooBig {
		p.kind, p.data, p.err = partFailed, nil, errDocumentTooLarge
	}
	return l.s.yield(p)
}
