package app

import "testing"

func TestParseGitSource(t *testing.T) {
	for _, tc := range []struct {
		arg       string
		ok        bool
		ref, path string
	}{
		{arg: "git:main:crds", ok: true, ref: "main", path: "crds"},
		{arg: "git:v1.2.0:./crds/", ok: true, ref: "v1.2.0", path: "./crds/"},
		{arg: "git:HEAD~1:crds/widgets.yaml", ok: true, ref: "HEAD~1", path: "crds/widgets.yaml"},
		// A ref name holds no ":"; a path may.
		{arg: "git:main:a:b.yaml", ok: true, ref: "main", path: "a:b.yaml"},
		{arg: "git:main"},
		{arg: "git:main:"},
		{arg: "git::crds"},
		{arg: "git:"},
		{arg: "git"},
		{arg: "crds/widgets.yaml"},
		{arg: "./git:main:crds"},
		{arg: "-"},
	} {
		src, ok := parseGitSource(tc.arg)
		if ok != tc.ok || src.ref != tc.ref || src.path != tc.path {
			t.Errorf("parseGitSource(%q) = %+v, %t; want ref %q, path %q, %t", tc.arg, src, ok, tc.ref, tc.path, tc.ok)
		}
		if ok && src.String() != tc.arg {
			t.Errorf("parseGitSource(%q).String() = %q", tc.arg, src.String())
		}
	}
}

// TestGitSourceEntry: a tree's entries keep PATH's "./", which git needs
// to resolve them from the current directory, and relativeTo shows each
// as its path in the tree.
func TestGitSourceEntry(t *testing.T) {
	for _, tc := range []struct {
		arg, object string
	}{
		{"git:main:crds", "main:crds/sub/x.yaml"},
		{"git:main:crds/", "main:crds/sub/x.yaml"},
		{"git:main:./crds", "main:./crds/sub/x.yaml"},
		{"git:main:./crds//", "main:./crds/sub/x.yaml"},
		{"git:main:./", "main:./sub/x.yaml"},
		{"git:main:./.", "main:./sub/x.yaml"},
		{"git:main:.", "main:sub/x.yaml"},
		{"git:main:../crds", "main:../crds/sub/x.yaml"},
		{"git:main:./../crds", "main:./../crds/sub/x.yaml"},
		{"git:main:crds/../api", "main:api/sub/x.yaml"},
	} {
		src, ok := parseGitSource(tc.arg)
		if !ok {
			t.Fatalf("parseGitSource(%q) failed", tc.arg)
		}
		entry := src.entry("sub/x.yaml")
		if entry.object() != tc.object {
			t.Errorf("%s: entry object %q, want %q", tc.arg, entry.object(), tc.object)
		}
		if got := relativeTo(entry.String(), tc.arg); got != "sub/x.yaml" {
			t.Errorf("relativeTo(%q, %q) = %q, want sub/x.yaml", entry.String(), tc.arg, got)
		}
	}
}

func TestGitSourceFile(t *testing.T) {
	src, _ := parseGitSource("git:v1:./crds/widgets.yaml")
	if src.object() != "v1:./crds/widgets.yaml" || src.base() != "widgets.yaml" {
		t.Errorf("object %q, base %q", src.object(), src.base())
	}
	if got := relativeTo(src.String(), src.String()); got != "widgets.yaml" {
		t.Errorf("relativeTo(itself) = %q, want widgets.yaml", got)
	}
}
