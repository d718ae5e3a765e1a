package manifest

import (
	"regexp"
	"testing"
)

// TestDecimalInt compares decimalInt with the regular expression of the
// integers JSON writes, on every string of up to four characters that
// integers are made of.
func TestDecimalInt(t *testing.T) {
	want := regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	const alphabet = "-+019a"
	var each func(prefix string, n int)
	each = func(prefix string, n int) {
		if got := decimalInt(prefix); got != want.MatchString(prefix) {
			t.Errorf("decimalInt(%q) = %v", prefix, got)
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			each(prefix+string(c), n-1)
		}
	}
	each("", 4)
}

// TestKeyStringWords checks that no word of YAML 1.1 is a string key,
// whatever its first character.
func TestKeyStringWords(t *testing.T) {
	for w := range yaml11Words {
		if s, ok := keyString([]byte(w)); ok {
			t.Errorf("keyString(%q) = %q, a string", w, s)
		}
	}
	for _, key := range []string{"apiVersion", "a.b/c", "0a", "-x", ".x", "yes1", "onion"} {
		if s, ok := keyString([]byte(key)); !ok || s != key {
			t.Errorf("keyString(%q) = %q, %v", key, s, ok)
		}
	}
}
