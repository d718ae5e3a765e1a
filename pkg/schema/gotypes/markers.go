package gotypes

import (
	"go/ast"
	"strings"
)

// Markers are the "+name=value" comment lines of a declaration, the way
// controller-gen and the Kubernetes code generators read them: name is the
// text between "+" and the first "=", value the rest ("" without "=").
type Markers map[string][]string

// Has tells whether marker name is present.
func (m Markers) Has(name string) bool {
	_, ok := m[name]
	return ok
}

// Value returns the last value of marker name, as controller-gen lets a later
// marker override an earlier one.
func (m Markers) Value(name string) (string, bool) {
	v, ok := m[name]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// add parses the marker lines of comment groups into m.
func (m Markers) add(groups ...*ast.CommentGroup) {
	for _, g := range groups {
		if g == nil {
			continue
		}
		for _, c := range g.List {
			line := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			if !strings.HasPrefix(line, "+") {
				continue
			}
			name, value, _ := strings.Cut(line[1:], "=")
			m[strings.TrimSpace(name)] = append(m[strings.TrimSpace(name)], strings.TrimSpace(value))
		}
	}
}

// Marker names the checks read. Each concept has a kubebuilder spelling and,
// for some, a Kubernetes code-generator spelling; controller-gen honours both.
var (
	optionalMarkers = []string{"optional", "k8s:optional", "kubebuilder:validation:Optional"}
	requiredMarkers = []string{"required", "k8s:required", "kubebuilder:validation:Required"}
	defaultMarkers  = []string{"kubebuilder:default", "default"}
)

// anyOf returns the first of names present in m.
func (m Markers) anyOf(names []string) (string, bool) {
	for _, n := range names {
		if m.Has(n) {
			return n, true
		}
	}
	return "", false
}
