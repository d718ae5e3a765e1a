package app

import "testing"

// relativeTo is source as the diff report names it: relative to the origin
// of the first of args it was read from.
func relativeTo(source string, args ...string) string {
	for _, arg := range args {
		if rel, ok := newDiffSide("NEW", arg).origin().Relative(source); ok {
			return rel
		}
	}
	return source
}

// TestRelativeTo: each source is named relative to the argument it was read
// from, as manifest.Expand and readGit name them.
func TestRelativeTo(t *testing.T) {
	for _, tc := range []struct {
		source string
		args   []string
		want   string
	}{
		{"config/crd/standard/x.yaml", []string{"config/crd/standard"}, "x.yaml"},
		{"config/crd/standard/x.yaml", []string{"config/crd/standard/"}, "x.yaml"},
		{"config/crd/standard/sub/x.yaml", []string{"./config/crd/standard"}, "sub/x.yaml"},
		{"x.yaml", []string{"."}, "x.yaml"},
		{"old/crds.yaml", []string{"old/crds.yaml"}, "crds.yaml"},
		{"-", []string{"-"}, "-"},
		{"git:main:crds/widgets.yaml", []string{"git:main:crds"}, "widgets.yaml"},
		{"git:main:./crds/widgets.yaml", []string{"git:main:./crds"}, "widgets.yaml"},
		{"git:main:./widgets.yaml", []string{"git:main:./"}, "widgets.yaml"},
		{"git:v1:crds/widgets.yaml", []string{"git:v1:crds/widgets.yaml"}, "widgets.yaml"},
		{"b/objects.yaml", []string{"a", "b"}, "objects.yaml"},
		{"elsewhere/x.yaml", []string{"a"}, "elsewhere/x.yaml"},
	} {
		if got := relativeTo(tc.source, tc.args...); got != tc.want {
			t.Errorf("relativeTo(%q, %q) = %q, want %q", tc.source, tc.args, got, tc.want)
		}
	}
}
