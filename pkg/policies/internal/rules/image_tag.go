package rules

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// versionGroup names the group of a tag pattern that holds the version.
const versionGroup = "version"

// TagPattern reads a version out of an image tag with a regular
// expression's "version" group, for tags that hold more than the version:
// Strimzi's "1.2.0-kafka-4.1.0" is the operator's version, then Kafka's.
type TagPattern struct {
	// Raw is the pattern as the policy wrote it.
	Raw   string
	re    *regexp.Regexp
	group int
}

// compileTagPattern compiles a tag pattern, anchored so that it matches
// the whole tag: a pattern that matched part of a tag would read a
// version out of a tag it was not written for. It returns nil for "".
func compileTagPattern(pattern string, path *field.Path) (*TagPattern, field.ErrorList) {
	if pattern == "" {
		return nil, nil
	}
	re, err := regexp.Compile(`^(?:` + pattern + `)$`)
	if err != nil {
		// The anchored form only fails where the pattern itself does, so
		// the error is the pattern's own.
		if _, own := regexp.Compile(pattern); own != nil {
			err = own
		}
		return nil, field.ErrorList{field.Invalid(path, pattern, "is not a valid regular expression (Go RE2 syntax): "+err.Error())}
	}
	count := 0
	for _, name := range re.SubexpNames() {
		if name == versionGroup {
			count++
		}
	}
	switch {
	case count == 0:
		return nil, field.ErrorList{field.Invalid(path, pattern, `has no group named "version", like (?P<version>[0-9.]+), which holds the version`)}
	case count > 1:
		return nil, field.ErrorList{field.Invalid(path, pattern, fmt.Sprintf(`has %d groups named "version"; it must have one`, count))}
	}
	return &TagPattern{Raw: pattern, re: re, group: re.SubexpIndex(versionGroup)}, nil
}

// Version is the version group of tag, ok false when the pattern does not
// match the tag or the group matched nothing.
func (p *TagPattern) Version(tag string) (string, bool) {
	m := p.re.FindStringSubmatch(tag)
	if m == nil || m[p.group] == "" {
		return "", false
	}
	return m[p.group], true
}

// tagVersion is the version a transition reads from an image tag: the
// pattern's group, else the tag up to its first "-" (a variant follows:
// "16.4-bookworm" is 16.4, and a pre-release in a tag reads as a variant).
func tagVersion(tag string, pattern *TagPattern) (string, bool) {
	if pattern != nil {
		return pattern.Version(tag)
	}
	version, _, _ := strings.Cut(tag, "-")
	return version, version != ""
}
