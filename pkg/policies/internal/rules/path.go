package rules

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ObjectPath is a parsed rule path such as
// "spec.template.spec.containers[*].resources" or "metadata.labels[app]".
// It is written the way the API server prints field paths, with "[*]" for
// every item of a list.
type ObjectPath struct {
	Raw   string
	Steps []PathStep
	// fixed[i] is the field path after steps[:i+1], built once, while no
	// step before it is "[*]": walking builds paths only past a wildcard.
	fixed []*field.Path
}

type PathStep struct {
	Field string // object field; "" when the step only indexes
	Each  bool   // "[*]": every list item
	Index int    // "[N]": one list item; -1 when unused
	Key   string // "[key]": one map entry
}

// parsePath parses a rule path. Every step names a field, optionally
// followed by one "[*]", "[N]" or "[key]".
func parsePath(s string) (ObjectPath, error) {
	if s == "" {
		return ObjectPath{}, fmt.Errorf("must not be empty")
	}
	p := ObjectPath{Raw: s}
	for rest := s; rest != ""; {
		name := rest
		if i := strings.IndexAny(rest, ".["); i >= 0 {
			name = rest[:i]
		}
		if name == "" {
			return ObjectPath{}, fmt.Errorf("empty field name at %q", rest)
		}
		rest = rest[len(name):]
		p.Steps = append(p.Steps, PathStep{Field: name, Index: -1})
		for strings.HasPrefix(rest, "[") {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return ObjectPath{}, fmt.Errorf("unclosed [ in %q", s)
			}
			sub, step := rest[1:end], PathStep{Index: -1}
			switch n, err := strconv.Atoi(sub); {
			case sub == "*":
				step.Each = true
			case sub == "":
				return ObjectPath{}, fmt.Errorf("empty [] in %q", s)
			case err == nil && n >= 0:
				step.Index = n
			default:
				step.Key = sub
			}
			p.Steps = append(p.Steps, step)
			rest = rest[end+1:]
		}
		if strings.HasPrefix(rest, ".") {
			rest = rest[1:]
			if rest == "" {
				return ObjectPath{}, fmt.Errorf("trailing . in %q", s)
			}
		} else if rest != "" {
			return ObjectPath{}, fmt.Errorf("unexpected %q in %q", rest, s)
		}
	}
	var at *field.Path
	for _, step := range p.Steps {
		if step.Each {
			break
		}
		at = step.child(at)
		p.fixed = append(p.fixed, at)
	}
	return p, nil
}

func (p ObjectPath) String() string { return p.Raw }

// child is the field path of what a step other than "[*]" reaches from
// parent.
func (s PathStep) child(parent *field.Path) *field.Path {
	switch {
	case s.Field != "":
		return childPath(parent, s.Field)
	case s.Index >= 0:
		return parent.Index(s.Index)
	}
	return parent.Key(s.Key)
}

// next is the field path of what step i reaches from path.
func (p ObjectPath) next(i int, path *field.Path) *field.Path {
	if i < len(p.fixed) {
		return p.fixed[i]
	}
	return p.Steps[i].child(path)
}

// visit calls fn for every place the path reaches in obj, with its concrete
// field path. The last step is visited even when it is missing (found is
// false) as long as its parent exists, so rules can report a required value
// at the exact place it belongs.
func (p ObjectPath) visit(obj map[string]any, fn func(path *field.Path, value any, found bool)) {
	p.walk(obj, nil, 0, -1, nil, func(path *field.Path, value any, found bool, _ any) { fn(path, value, found) })
}

// visitItems is visit from step from of the path, at value and path (what
// the steps before it reached), also naming for each place the list item
// of the path's last "[*]" it is in: nil when that "[*]" comes before
// from, or the path has none.
func (p ObjectPath) visitItems(value any, path *field.Path, from int, fn func(path *field.Path, value any, found bool, item any)) {
	itemAt := p.LastEach()
	if itemAt < from {
		itemAt = -1
	}
	p.walk(value, path, from, itemAt, nil, fn)
}

// LastEach is the index of the path's last "[*]" step, -1 for none.
func (p ObjectPath) LastEach() int {
	for i := len(p.Steps) - 1; i >= 0; i-- {
		if p.Steps[i].Each {
			return i
		}
	}
	return -1
}

// walk visits from step i; itemAt is the step whose list items are passed
// on as item.
func (p ObjectPath) walk(value any, path *field.Path, i, itemAt int, item any, fn func(*field.Path, any, bool, any)) {
	if i == len(p.Steps) {
		fn(path, value, true, item)
		return
	}
	step, last := p.Steps[i], i == len(p.Steps)-1
	switch {
	case step.Field != "":
		m, ok := value.(map[string]any)
		if !ok {
			return
		}
		child, found := m[step.Field]
		next := p.next(i, path)
		if !found || child == nil {
			if last {
				fn(next, nil, false, item)
			}
			return
		}
		p.walk(child, next, i+1, itemAt, item, fn)
	case step.Each:
		list, ok := value.([]any)
		if !ok {
			return
		}
		for j, elem := range list {
			if i == itemAt {
				item = elem
			}
			p.walk(elem, path.Index(j), i+1, itemAt, item, fn)
		}
	case step.Index >= 0:
		list, ok := value.([]any)
		if !ok {
			return
		}
		if step.Index < len(list) {
			p.walk(list[step.Index], p.next(i, path), i+1, itemAt, item, fn)
		} else if last {
			fn(p.next(i, path), nil, false, item)
		}
	default:
		m, ok := value.(map[string]any)
		if !ok {
			return
		}
		child, found := m[step.Key]
		if !found || child == nil {
			if last {
				fn(p.next(i, path), nil, false, item)
			}
			return
		}
		p.walk(child, p.next(i, path), i+1, itemAt, item, fn)
	}
}

// get returns the value at a path without "[*]", if it is there.
func (p ObjectPath) get(obj map[string]any) (value any, path *field.Path, found bool) {
	p.visit(obj, func(fp *field.Path, v any, ok bool) {
		value, path, found = v, fp, ok
	})
	if path == nil {
		path = p.FieldPath()
	}
	return value, path, found
}

// FieldPath is a path without "[*]" as a field path, for reporting where
// a value is expected but its parent is missing: the last of the fixed
// paths parsePath built.
func (p ObjectPath) FieldPath() *field.Path {
	if len(p.fixed) == 0 {
		return nil
	}
	return p.fixed[len(p.fixed)-1]
}

func childPath(parent *field.Path, name string) *field.Path {
	if parent == nil {
		return field.NewPath(name)
	}
	return parent.Child(name)
}

// HasWildcard tells whether the path matches several places.
func (p ObjectPath) HasWildcard() bool { return len(p.fixed) < len(p.Steps) }
