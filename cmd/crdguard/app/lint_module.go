package app

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// lintModule decides where lint loads packages from. go/packages resolves
// patterns within the module of the directory it runs in, and operators
// often keep their API in a module of its own (./api from kubebuilder's
// multi-module layout, prometheus-operator's pkg/apis/monitoring, flux's
// api), so "crdguard lint ./api/..." from the repository's root would find
// nothing. Directory patterns that all lie in one other module are loaded
// from that module's root, rewritten relative to it. dir is -C's directory
// ("" for the working directory), where the patterns are relative to.
// Patterns in several modules, or import paths beside directories of
// another module, are an error that says what to run instead.
func lintModule(dir string, patterns []string) (string, []string, error) {
	base, err := filepath.Abs(cmp.Or(dir, "."))
	if err != nil {
		return "", nil, err
	}
	if info, err := os.Stat(base); err != nil || !info.IsDir() {
		return "", nil, fmt.Errorf("-C %s: not a directory", dir)
	}
	home := moduleRoot(base)
	type located struct {
		pattern, dir, module string
		wildcard             bool
	}
	var paths []located
	var importPath string
	for _, p := range patterns {
		if !isDirPattern(p) {
			importPath = p
			continue
		}
		root, wildcard := strings.CutSuffix(filepath.ToSlash(p), "/...")
		if strings.Contains(root, "...") {
			// A wildcard inside the path: go resolves it, in dir's module.
			paths = append(paths, located{pattern: p, module: home})
			continue
		}
		abs := filepath.FromSlash(root)
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(base, abs)
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			// Fail closed, and say so in the user's words rather than in
			// go list's.
			return "", nil, fmt.Errorf("%s: no such directory", p)
		}
		paths = append(paths, located{pattern: p, dir: abs, module: moduleRoot(abs), wildcard: wildcard})
	}
	if len(paths) == 0 {
		return dir, patterns, nil
	}
	module := paths[0].module
	for _, l := range paths[1:] {
		if l.module != module {
			return "", nil, fmt.Errorf("%s is in %s, %s in %s: lint one module per run, from its directory or with -C DIR",
				paths[0].pattern, describeModule(module), l.pattern, describeModule(l.module))
		}
	}
	switch {
	case module == "":
		return "", nil, fmt.Errorf("%s is in no Go module: no go.mod in it or above", paths[0].pattern)
	case module == home:
		return dir, patterns, nil
	case importPath != "":
		// go resolves the import path in dir's module, the directories in
		// theirs: one load cannot do both.
		return "", nil, fmt.Errorf("%s is in %s: run from there or pass -C %s", paths[0].pattern, describeModule(module), displayDir(module))
	}
	rewritten := make([]string, len(paths))
	for i, l := range paths {
		rel, err := filepath.Rel(module, l.dir)
		if err != nil {
			return "", nil, err
		}
		rewritten[i] = "./" + filepath.ToSlash(rel)
		if l.wildcard {
			rewritten[i] += "/..."
		}
	}
	return module, rewritten, nil
}

// isDirPattern says whether a go list pattern names a directory rather than
// an import path, by go's rule: it is absolute or starts with . or ..
func isDirPattern(p string) bool {
	return filepath.IsAbs(p) || p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
}

// moduleRoot is the directory of the go.mod that holds dir, "" for none.
func moduleRoot(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// describeModule names a module root as "module example.com/api at ./api".
func describeModule(root string) string {
	if root == "" {
		return "no module"
	}
	data, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	if path := modfile.ModulePath(data); path != "" {
		return "module " + path + " at " + displayDir(root)
	}
	return "the module at " + displayDir(root)
}

// displayDir is dir as the user would type it from the working directory:
// "./api", "../operator", or absolute when that is shorter to read.
func displayDir(dir string) string {
	rel := displayFile(dir)
	switch {
	case filepath.IsAbs(rel):
		return rel
	case rel == ".":
		return "."
	}
	return "./" + filepath.ToSlash(rel)
}
