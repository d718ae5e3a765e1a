package policies

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// objectPath is a parsed rule path such as
// "spec.template.spec.containers[*].resources" or "metadata.labels[app]".
// It is written the way the API server prints field paths, with "[*]" for
// every item of a list.
type objectPath struct {
	raw   string
	steps []pathStep
}

type pathStep struct {
	field string // object field; "" when the step only indexes
	each  bool   // "[*]": every list item
	index int    // "[N]": one list item; -1 when unused
	key   string // "[key]": one map entry
}

// parsePath parses a rule path. Every step names a field, optionally
// followed by one "[*]", "[N]" or "[key]".
func parsePath(s string) (objectPath, error) {
	if s == "" {
		return objectPath{}, fmt.Errorf("must not be empty")
	}
	p := objectPath{raw: s}
	for rest := s; rest != ""; {
		name := rest
		if i := strings.IndexAny(rest, ".["); i >= 0 {
			name = rest[:i]
		}
		if name == "" {
			return objectPath{}, fmt.Errorf("empty field name at %q", rest)
		}
		rest = rest[len(name):]
		p.steps = append(p.steps, pathStep{field: name, index: -1})
		for strings.HasPrefix(rest, "[") {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return objectPath{}, fmt.Errorf("unclosed [ in %q", s)
			}
			sub, step := rest[1:end], pathStep{index: -1}
			switch n, err := strconv.Atoi(sub); {
			case sub == "*":
				step.each = true
			case sub == "":
				return objectPath{}, fmt.Errorf("empty [] in %q", s)
			case err == nil && n >= 0:
				step.index = n
			default:
				step.key = sub
			}
			p.steps = append(p.steps, step)
			rest = rest[end+1:]
		}
		if strings.HasPrefix(rest, ".") {
			rest = rest[1:]
			if rest == "" {
				return objectPath{}, fmt.Errorf("trailing . in %q", s)
			}
		} else if rest != "" {
			return objectPath{}, fmt.Errorf("unexpected %q in %q", rest, s)
		}
	}
	return p, nil
}

func (p objectPath) String() string { return p.raw }

// visit calls fn for every place the path reaches in obj, with its concrete
// field path. The last step is visited even when it is missing (found is
// false) as long as its parent exists, so rules can report a required value
// at the exact place it belongs.
func (p objectPath) visit(obj map[string]any, fn func(path *field.Path, value any, found bool)) {
	p.walk(obj, nil, 0, fn)
}

func (p objectPath) walk(value any, path *field.Path, i int, fn func(*field.Path, any, bool)) {
	if i == len(p.steps) {
		fn(path, value, true)
		return
	}
	step, last := p.steps[i], i == len(p.steps)-1
	switch {
	case step.field != "":
		m, ok := value.(map[string]any)
		if !ok {
			return
		}
		child, found := m[step.field]
		next := childPath(path, step.field)
		if !found || child == nil {
			if last {
				fn(next, nil, false)
			}
			return
		}
		p.walk(child, next, i+1, fn)
	case step.each:
		list, ok := value.([]any)
		if !ok {
			return
		}
		for j, item := range list {
			p.walk(item, path.Index(j), i+1, fn)
		}
	case step.index >= 0:
		list, ok := value.([]any)
		if !ok {
			return
		}
		if step.index < len(list) {
			p.walk(list[step.index], path.Index(step.index), i+1, fn)
		} else if last {
			fn(path.Index(step.index), nil, false)
		}
	default:
		m, ok := value.(map[string]any)
		if !ok {
			return
		}
		child, found := m[step.key]
		if !found || child == nil {
			if last {
				fn(path.Key(step.key), nil, false)
			}
			return
		}
		p.walk(child, path.Key(step.key), i+1, fn)
	}
}

// get returns the value at a path without "[*]", if it is there.
func (p objectPath) get(obj map[string]any) (value any, path *field.Path, found bool) {
	p.visit(obj, func(fp *field.Path, v any, ok bool) {
		value, path, found = v, fp, ok
	})
	if path == nil {
		path = p.fieldPath()
	}
	return value, path, found
}

// fieldPath is the path itself as a field path, for reporting where a
// value is expected but its parent is missing.
func (p objectPath) fieldPath() *field.Path {
	var fp *field.Path
	for _, s := range p.steps {
		switch {
		case s.field != "":
			fp = childPath(fp, s.field)
		case s.each:
			fp = fp.Index(0) // not used for wildcard paths; keeps the shape
		case s.index >= 0:
			fp = fp.Index(s.index)
		default:
			fp = fp.Key(s.key)
		}
	}
	return fp
}

func childPath(parent *field.Path, name string) *field.Path {
	if parent == nil {
		return field.NewPath(name)
	}
	return parent.Child(name)
}

// hasWildcard tells whether the path matches several places.
func (p objectPath) hasWildcard() bool {
	for _, s := range p.steps {
		if s.each {
			return true
		}
	}
	return false
}
