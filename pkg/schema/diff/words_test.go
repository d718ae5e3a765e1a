package diff

import (
	"strings"
	"testing"
)

func TestWordDiff(t *testing.T) {
	ten := "one two three four five six seven eight nine ten"
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"a word replaced", "the quick brown fox", "the slow brown fox", "the [-quick-]{+slow+} brown fox"},
		{"context bounded at the start", ten + " end", ten + " finish", "… seven eight nine ten [-end-]{+finish+}"},
		{"context bounded at the end", "start " + ten, "begin " + ten, "[-start-]{+begin+} one two three four …"},
		{"two changes far apart", "a " + ten + " z", "b " + ten + " y", "[-a-]{+b+} one two three four … seven eight nine ten [-z-]{+y+}"},
		{"two changes close together", "a one two b", "x one two y", "[-a-]{+x+} one two [-b-]{+y+}"},
		{"words added", "keep this", "keep all of this", "keep {+all of+} this"},
		{"words removed", "keep all of this", "keep this", "keep [-all of-] this"},
		{"line breaks are spaces", "first line\nsecond line", "first line\nthird line", "first line [-second-]{+third+} line"},
		{"whitespace only", "wrapped\ntext", "wrapped text", "whitespace changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := wordDiff(tc.old, tc.new); got != tc.want {
				t.Errorf("wordDiff\n got: %q\nwant: %q", got, tc.want)
			}
		})
	}
}

// TestWordDiffIsBounded: a description rewritten in full is still one
// report line.
func TestWordDiffIsBounded(t *testing.T) {
	got := wordDiff(strings.Repeat("old ", 500), strings.Repeat("new ", 500))
	if r := []rune(got); len(r) != maxWordDiffRunes || !strings.HasPrefix(got, "[-old old") || !strings.HasSuffix(got, "…") {
		t.Errorf("wordDiff of a rewrite: %d runes, %q", len(r), got)
	}
}
