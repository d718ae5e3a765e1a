package diff

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// wordContext is how many unchanged words a word diff keeps on each side of
// a change: enough to find the sentence, few enough to stay one line.
const wordContext = 4

// maxWordDiffRunes bounds a word diff: a rewritten description is still a
// report line.
const maxWordDiffRunes = 2 * maxValueRunes

// wordDiff shows the words that changed between old and new, marked as git
// diff --word-diff marks them ("[-removed-]{+added+}"), each change with
// wordContext words around it and "…" for the unchanged words left out.
// Words are what strings.Fields splits on, so a change of whitespace alone
// reads as such.
func wordDiff(old, new string) string {
	a, b := strings.Fields(old), strings.Fields(new)
	// No automatic junk: in a long description "the" and "a" are popular,
	// and treating them as junk would split changes oddly.
	ops := difflib.NewMatcherWithJunk(a, b, false, nil).GetOpCodes()
	var parts []string
	changed := false
	for i, op := range ops {
		switch op.Tag {
		case 'e':
			parts = append(parts, unchanged(a[op.I1:op.I2], i == 0, i == len(ops)-1)...)
		case 'd':
			parts = append(parts, "[-"+strings.Join(a[op.I1:op.I2], " ")+"-]")
		case 'i':
			parts = append(parts, "{+"+strings.Join(b[op.J1:op.J2], " ")+"+}")
		case 'r':
			parts = append(parts, "[-"+strings.Join(a[op.I1:op.I2], " ")+"-]{+"+strings.Join(b[op.J1:op.J2], " ")+"+}")
		}
		changed = changed || op.Tag != 'e'
	}
	if !changed {
		return "whitespace changed"
	}
	return oneLine(strings.Join(parts, " "), maxWordDiffRunes)
}

// unchanged is the part of a run of unchanged words a word diff shows: the
// last words before the first change, the first after the last one, both
// ends between two changes.
func unchanged(words []string, first, last bool) []string {
	switch {
	case first && last:
		return nil
	case first:
		if len(words) > wordContext {
			return append([]string{"…"}, words[len(words)-wordContext:]...)
		}
	case last:
		if len(words) > wordContext {
			return append(words[:wordContext:wordContext], "…")
		}
	default:
		if len(words) > 2*wordContext {
			out := append(words[:wordContext:wordContext], "…")
			return append(out, words[len(words)-wordContext:]...)
		}
	}
	return words
}
