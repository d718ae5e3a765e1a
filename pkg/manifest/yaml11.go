package manifest

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// resolvePlain is the value of a plain scalar as YAML 1.1 resolves it in
// the go.yaml.in/yaml/v2 parser sigs.k8s.io/yaml uses, after the JSON
// round trip: "yes", "on" and "y" are true, "~" is null, a decimal
// integer is an int64, anything else that could be a number is left to
// the general decoder (floats, which the round trip may turn into
// integers; octal, hexadecimal and binary; base 60; "_" separators;
// timestamps, overflows, signs), and the rest is the string.
func resolvePlain(s string) (any, bool) {
	if v, known := yaml11Word(s); known {
		return v, v != errUnsure
	}
	switch c := s[0]; {
	case c == '.':
		// ".5" is a float, "..." a string.
		if _, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return nil, false
		}
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
		return resolveNumeric(s)
	}
	return s, true
}

// errUnsure marks the words that resolve to a float or to the merge key.
var errUnsure = errors.New("not decoded by the fast path")

// yaml11Words are the plain scalars YAML 1.1 resolves by name.
var yaml11Words = map[string]any{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"true": true, "True": true, "TRUE": true,
	"on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"false": false, "False": false, "FALSE": false,
	"off": false, "Off": false, "OFF": false,
	"~": nil, "null": nil, "Null": nil, "NULL": nil,
	".nan": errUnsure, ".NaN": errUnsure, ".NAN": errUnsure,
	".inf": errUnsure, ".Inf": errUnsure, ".INF": errUnsure,
	"+.inf": errUnsure, "+.Inf": errUnsure, "+.INF": errUnsure,
	"-.inf": errUnsure, "-.Inf": errUnsure, "-.INF": errUnsure,
	"<<": errUnsure,
}

// longestYAML11Word is the length of the longest of yaml11Words: a
// longer scalar need not be looked up.
var longestYAML11Word = func() int {
	longest := 0
	for w := range yaml11Words {
		longest = max(longest, len(w))
	}
	return longest
}()

// yaml11Word is the value of s if it is one of yaml11Words.
func yaml11Word(s string) (any, bool) {
	if len(s) > longestYAML11Word {
		return nil, false
	}
	v, known := yaml11Words[s]
	return v, known
}

// decimalInt tells an integer written the one way JSON writes it back:
// an optional "-", then "0" or digits not starting with "0".
func decimalInt(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// floatLike is YAML 1.1's float syntax as the parser matches it.
var floatLike = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// resolveNumeric resolves a plain scalar starting with a sign or a digit:
// an int64 when it is a plain decimal integer, the string when it can be
// neither a number nor a timestamp, and unsure otherwise.
func resolveNumeric(s string) (any, bool) {
	if decimalInt(s) {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	switch {
	case timestampLike(s), strings.IndexByte(s, '_') >= 0, floatLike.MatchString(s),
		strings.HasPrefix(s, "0b"), strings.HasPrefix(s, "-0b"), strings.HasPrefix(s, "+0b"):
		return nil, false
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return nil, false
	}
	if _, err := strconv.ParseUint(s, 0, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return nil, false
	}
	return s, true
}

// timestampLike tells a scalar the parser may take for a timestamp: four
// digits and a dash.
func timestampLike(s string) bool {
	return len(s) > 4 && s[4] == '-' && strings.Trim(s[:4], "0123456789") == ""
}
