package manifest

import "bytes"

// plainLines is the plain scalar whose first line is first, folded with
// the lines after pos that continue it, as the YAML 1.1 scanner of
// go.yaml.in/yaml/v2 folds them: lines go on while indented more than
// the collection at indent, and end at one that is not or at a comment.
// The lines it covers are skipped. A continuation holding a ": " is an
// error of the YAML parser, left to the general decoder.
func (p *blockParser) plainLines(indent int, first []byte) (string, bool) {
	var folded []byte
	empty, end := 0, 0
	for offset := p.lines[p.pos-1].next; offset < len(p.data); {
		line, next, _ := rawLine(p.data, offset)
		offset = next
		text := bytes.TrimLeft(line, " ")
		if len(text) == 0 {
			empty++
			continue
		}
		if len(line)-len(text) <= indent || text[0] == '#' {
			break
		}
		text, commented, ok := plainLine(text)
		if !ok {
			return "", false
		}
		if folded == nil {
			folded = append(make([]byte, 0, 2*len(first)), first...)
		}
		folded = append(foldBreak(folded, empty), text...)
		empty, end = 0, next
		if commented {
			break
		}
	}
	if folded == nil {
		return string(first), true
	}
	p.skipTo(end)
	return string(folded), true
}

// quotedLines is the quoted scalar that starts with text, on one line
// or several, folded as plainLines folds: the spaces around a line break
// are not part of the value. Its lines must be indented more than the
// collection at indent, and its closing quote followed by nothing but a
// comment. The lines it covers are skipped.
func (p *blockParser) quotedLines(indent int, text []byte) (any, bool) {
	quote := text[0]
	value, after, closed, ok := quotedLine(nil, text[1:], quote)
	empty, offset := 0, p.lines[p.pos-1].next
	for ok && !closed && offset < len(p.data) {
		line, next, _ := rawLine(p.data, offset)
		offset = next
		text := bytes.TrimLeft(line, " ")
		if len(text) == 0 {
			empty++
			continue
		}
		if len(line)-len(text) <= indent {
			return nil, false
		}
		value, after, closed, ok = quotedLine(foldBreak(value, empty), text, quote)
		empty = 0
	}
	if !closed || (len(after) > 0 && (after[0] != ' ' || !emptyValue(after))) {
		return nil, false
	}
	p.skipTo(offset)
	return string(value), true
}

// foldBreak joins the next line of a folded scalar to s: a space when no
// empty line lies between them, else a line break for each empty line.
func foldBreak(s []byte, emptyLines int) []byte {
	if emptyLines == 0 {
		return append(s, ' ')
	}
	for range emptyLines {
		s = append(s, '\n')
	}
	return s
}
