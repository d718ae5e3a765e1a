package app

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/module"
)

// displayFile prints files under the working directory relative to it, as
// editors and code scanning services resolve them; others stay absolute.
func displayFile(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// moduleFile names a file in the module cache as module@version/path, as
// go's own messages do ("k8s.io/api@v0.32.0/core/v1/types.go"), rather
// than by a path that differs on every machine; other files as displayFile
// does.
func moduleFile(path string) string {
	rel, err := filepath.Rel(moduleCache(), path)
	if err != nil || !filepath.IsLocal(rel) {
		return displayFile(path)
	}
	// rel is the module path and version as the cache escapes them (upper
	// case as "!" and lower case), then the file within the module:
	// "github.com/!burnt!sushi/toml@v1.4.0/decode.go".
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, part := range parts {
		name, version, ok := strings.Cut(part, "@")
		if !ok {
			continue
		}
		modPath, errPath := module.UnescapePath(strings.Join(append(parts[:i:i], name), "/"))
		modVersion, errVersion := module.UnescapeVersion(version)
		if errPath != nil || errVersion != nil {
			break
		}
		return modPath + "@" + modVersion + "/" + strings.Join(parts[i+1:], "/")
	}
	return displayFile(path)
}

// moduleCache is where go keeps downloaded modules: $GOMODCACHE, or pkg/mod
// in the first $GOPATH entry, as the go command decides it.
func moduleCache() string {
	if dir := os.Getenv("GOMODCACHE"); dir != "" {
		return dir
	}
	if gopath := filepath.SplitList(build.Default.GOPATH); len(gopath) > 0 {
		return filepath.Join(gopath[0], "pkg", "mod")
	}
	return ""
}
