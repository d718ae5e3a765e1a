package app

import (
	"go/token"
	"path/filepath"
	"testing"

	"github.com/crdguard/crdguard/pkg/schema/gotypes"
)

func TestModuleFile(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("GOMODCACHE", cache)
	outside := filepath.Join(t.TempDir(), "types.go")
	tests := []struct {
		name, path, want string
	}{
		{"a module in the cache", filepath.Join(cache, "k8s.io/api@v0.32.0/core/v1/types.go"), "k8s.io/api@v0.32.0/core/v1/types.go"},
		{"upper case, escaped in the cache", filepath.Join(cache, "github.com/!burnt!sushi/toml@v1.4.0/decode.go"), "github.com/BurntSushi/toml@v1.4.0/decode.go"},
		{"a file outside the cache", outside, outside},
		{"a cache file outside any module", filepath.Join(cache, "cache/lock"), filepath.Join(cache, "cache/lock")},
		{"the working directory's files", "lint.go", "lint.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if !filepath.IsAbs(path) {
				path, _ = filepath.Abs(path)
			}
			if got := moduleFile(path); got != tt.want {
				t.Errorf("moduleFile(%q) = %q, want %q", path, got, tt.want)
			}
		})
	}
}

func TestLintMessage(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("GOMODCACHE", cache)
	finding := gotypes.Finding{
		Message: "PersistentVolumeClaimTemplate.ObjectMeta is a v1.ObjectMeta, but the schema declares an object without properties",
		Hint:    "declare its properties in the schema",
	}
	tests := []struct {
		name       string
		declaredAt token.Position
		want       string
	}{
		{"the linted module's own field", token.Position{},
			"PersistentVolumeClaimTemplate.ObjectMeta is a v1.ObjectMeta, but the schema declares an object without properties; fix: declare its properties in the schema"},
		{"a third-party type behind it", token.Position{Filename: filepath.Join(cache, "k8s.io/api@v0.32.0/core/v1/types.go"), Line: 2220},
			"PersistentVolumeClaimTemplate.ObjectMeta is a v1.ObjectMeta, but the schema declares an object without properties (declared at k8s.io/api@v0.32.0/core/v1/types.go:2220); fix: declare its properties in the schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := finding
			f.DeclaredAt = tt.declaredAt
			if got := lintMessage(f); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
