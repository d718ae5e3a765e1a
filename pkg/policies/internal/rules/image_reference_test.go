package rules

import (
	"fmt"
	"strings"
	"testing"
)

// TestParseImageCache checks that a cached parse is the parse, errors
// included, and that the cache stays within its bounds.
func TestParseImageCache(t *testing.T) {
	cases := map[string]imageReference{
		"mysql:8.0.36":                                 {tag: "8.0.36"},
		"registry.local:5000/mysql":                    {},
		"mysql@sha256:" + strings.Repeat("ab", 32):     {hasDigest: true},
		"mysql:8.0@sha256:" + strings.Repeat("cd", 32): {tag: "8.0", hasDigest: true},
	}
	for image, want := range cases {
		for range 2 { // parsed, then cached
			if got := parseImage(image); got != want {
				t.Errorf("%s: got %+v, want %+v", image, got, want)
			}
		}
	}
	first, second := parseImage("MySQL:8"), parseImage("MySQL:8")
	if first.err == nil || second.err == nil || first.err.Error() != second.err.Error() {
		t.Errorf("an invalid reference must give the same error when cached: %v, %v", first.err, second.err)
	}

	long := "mysql:" + strings.Repeat("8", maxCachedImageLength)
	parseImage(long)
	if _, cached := parsedImages.refs.Load(long); cached {
		t.Errorf("a reference over %d characters was cached", maxCachedImageLength)
	}
	for i := range maxParsedImages + 10 {
		parseImage(fmt.Sprintf("mysql:%d", i))
	}
	if n := parsedImages.size.Load(); n < 1 || n > maxParsedImages {
		t.Errorf("cache holds %d entries, want at most %d", n, maxParsedImages)
	}
	if got := parseImage("mysql:8.0.36"); got != cases["mysql:8.0.36"] {
		t.Errorf("after the cache was emptied: got %+v", got)
	}
}
