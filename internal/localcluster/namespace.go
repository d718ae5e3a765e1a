package localcluster

import "strings"

// NamespaceName turns name (a test's, say) into a namespace name of at
// most maxLen characters: lower case letters and digits, anything else a
// dash, no dash at either end.
func NamespaceName(name string, maxLen int) string {
	ns := strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '-'
	}, name), "-")
	if len(ns) > maxLen {
		ns = strings.TrimRight(ns[:maxLen], "-")
	}
	return ns
}
