package app

import (
	"path"
	"strings"
)

// gitPrefix starts every git:REF:PATH argument of crdguard diff.
const gitPrefix = "git:"

// gitSource is a git:REF:PATH argument: PATH, a file or a tree, at REF.
// readGit reads it and names its documents' sources, and relativeTo
// shortens those names for display; both take them from here, so that they
// agree.
type gitSource struct {
	ref, path string
}

// parseGitSource reads arg as git:REF:PATH. It reports false for an
// argument without the git: prefix and for one without a REF or a PATH.
// REF ends at the first ":", which git does not allow in a ref name; PATH
// may hold more.
func parseGitSource(arg string) (gitSource, bool) {
	rest, ok := strings.CutPrefix(arg, gitPrefix)
	if !ok {
		return gitSource{}, false
	}
	ref, p, ok := strings.Cut(rest, ":")
	if !ok || ref == "" || p == "" {
		return gitSource{}, false
	}
	return gitSource{ref: ref, path: p}, true
}

// String is the argument, git:REF:PATH, and the source of the documents
// of a file.
func (s gitSource) String() string { return gitPrefix + s.object() }

// object is REF:PATH, as git cat-file, show and ls-tree take it.
func (s gitSource) object() string { return s.ref + ":" + s.path }

// base is the last element of PATH: a file's name.
func (s gitSource) base() string { return path.Base(s.path) }

// entry is the file name, a path in the tree PATH as git ls-tree lists it,
// at the same REF.
func (s gitSource) entry(name string) gitSource {
	return gitSource{ref: s.ref, path: s.entryPrefix() + name}
}

// entryPrefix is what the paths of the tree's entries start with: PATH
// cleaned as path.Join would, but keeping a leading "./", which makes git
// resolve the path from the current directory rather than the repository
// root. It is empty for the root.
func (s gitSource) entryPrefix() string {
	var prefix string
	if strings.HasPrefix(s.path, "./") {
		prefix = "./"
	}
	if clean := path.Clean(s.path); clean != "." {
		prefix += clean + "/"
	}
	return prefix
}
