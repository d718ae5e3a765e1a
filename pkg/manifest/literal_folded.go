package manifest

import "bytes"

// blockScalar reads the literal ("|") or folded (">") block scalar whose
// header is text, in a collection at indent, as the YAML 1.1 scanner of
// go.yaml.in/yaml/v2 reads it. Its lines are those indented at least as
// much as its first; a literal keeps their line breaks, a folded one
// joins lines with a space unless an empty line lies between them or
// either is indented more. Chomping: "-" strips the final line break,
// "+" keeps it and the empty lines after it, none keeps only it. An empty
// block scalar, or one whose first line is less indented than an empty
// line before it, is left to the general decoder. The lines it covers
// are skipped. Its value is always a string.
func (p *blockParser) blockScalar(indent int, text []byte) (any, bool) {
	folded := text[0] == '>'
	chomping, increment, ok := blockScalarHeader(text[1:])
	if !ok {
		return nil, false
	}
	start := p.lines[p.pos-1].next
	column := indent + increment
	if increment == 0 {
		if column, ok = p.blockScalarIndentation(indent, start); !ok {
			return nil, false
		}
	}
	var s []byte
	empty, end := 0, len(p.data)
	// broken: the last line read ended with a line break; moreIndented:
	// it started with a space after the scalar's indentation.
	var broken, moreIndented, read bool
	for offset := start; offset < len(p.data); {
		line, next, lineBroken := rawLine(p.data, offset)
		spaces := len(line) - len(bytes.TrimLeft(line, " "))
		if spaces == len(line) && spaces <= column {
			if lineBroken {
				empty++
			}
			offset = next
			continue
		}
		if spaces < column {
			end = offset
			break
		}
		content := line[column:]
		startsBlank := content[0] == ' '
		switch {
		case folded && broken && !moreIndented && !startsBlank:
			if empty == 0 {
				s = append(s, ' ')
			}
		case broken:
			s = append(s, '\n')
		}
		for range empty {
			s = append(s, '\n')
		}
		s = append(s, content...)
		empty, broken, moreIndented, read = 0, lineBroken, startsBlank, true
		offset = next
	}
	if !read {
		return nil, false
	}
	if chomping != '-' && broken {
		s = append(s, '\n')
	}
	if chomping == '+' {
		for range empty {
			s = append(s, '\n')
		}
	}
	p.skipTo(end)
	return string(s), true
}

// blockScalarHeader reads what follows "|" or ">": a chomping indicator
// ('-', '+', or 0 for none) and an indentation indicator from 1 to 9 (0
// for none), in either order, then nothing or a comment after a space.
func blockScalarHeader(text []byte) (chomping byte, increment int, ok bool) {
	for range 2 {
		switch {
		case len(text) == 0:
		case chomping == 0 && (text[0] == '-' || text[0] == '+'):
			chomping, text = text[0], text[1:]
		case increment == 0 && text[0] >= '1' && text[0] <= '9':
			increment, text = int(text[0]-'0'), text[1:]
		}
	}
	return chomping, increment, len(text) == 0 || (text[0] == ' ' && emptyValue(text))
}

// blockScalarIndentation is the indentation of a block scalar without an
// indentation indicator, starting at offset in a collection at indent:
// that of its first line that is not empty. An empty line before it with
// more spaces, or a first line not indented more than the collection,
// would make the scalar empty: unsure.
func (p *blockParser) blockScalarIndentation(indent, offset int) (int, bool) {
	widest := 0
	for offset < len(p.data) {
		line, next, broken := rawLine(p.data, offset)
		spaces := len(line) - len(bytes.TrimLeft(line, " "))
		if spaces < len(line) {
			return spaces, spaces > indent && spaces >= widest
		}
		if !broken {
			break
		}
		widest = max(widest, spaces)
		offset = next
	}
	return 0, false
}
