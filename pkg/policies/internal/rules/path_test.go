package rules

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestObjectPath: the field paths a path reports, where its values are
// and where a missing one belongs, with and without "[*]".
func TestObjectPath(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{
		"users":     []any{map[string]any{"name": "a"}, map[string]any{}},
		"resources": map[string]any{"requests": map[string]any{"cpu": "1"}},
	}}
	for _, tt := range []struct {
		path     string
		wildcard bool
		visits   string // field path=value, or field path=missing
		get      string // get's field path, for a path without [*]
	}{
		{"spec.resources.requests[cpu]", false, "spec.resources.requests[cpu]=1", "spec.resources.requests[cpu]"},
		{"spec.resources.limits[cpu]", false, "", "spec.resources.limits[cpu]"},
		{"spec.storage.size", false, "", "spec.storage.size"},
		{"spec.users[1].name", false, "spec.users[1].name=missing", "spec.users[1].name"},
		{"spec.users[*].name", true, "spec.users[0].name=a spec.users[1].name=missing", ""},
	} {
		p, err := parsePath(tt.path)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if p.HasWildcard() != tt.wildcard {
			t.Errorf("%s: hasWildcard %v, want %v", tt.path, p.HasWildcard(), tt.wildcard)
		}
		var visits []string
		p.visit(obj, func(fp *field.Path, v any, found bool) {
			if !found {
				v = "missing"
			}
			visits = append(visits, fmt.Sprintf("%s=%v", fp, v))
		})
		if got := strings.Join(visits, " "); got != tt.visits {
			t.Errorf("%s: visits %q, want %q", tt.path, got, tt.visits)
		}
		if tt.wildcard {
			continue
		}
		if _, fp, _ := p.get(obj); fp.String() != tt.get {
			t.Errorf("%s: get's path %q, want %q", tt.path, fp, tt.get)
		}
	}
}
