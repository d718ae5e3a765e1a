package manifest

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Extensions are the file endings read when walking a directory.
var Extensions = []string{".yaml", ".yml", ".json"}

// Source is one input a walk found: a file to read, "-" for standard input,
// or something it does not read and says why.
type Source struct {
	// Path is the file as given, or under the directory as given.
	Path string
	// Skip, when set, says why Path is not read: a named pipe, socket or
	// device in a directory (whose read would block or never end), a
	// symlinked directory (not followed, so a link cycle cannot loop),
	// or, with WalkOptions.SkipRepositoryFiles, a file of a repository
	// that is not a manifest (RepositoryFile).
	Skip string
	// Err is why a directory on the way could not be listed; the caller
	// reports it as it reports a file it cannot read.
	Err error
}

// WalkOptions say which files a walk leaves out.
type WalkOptions struct {
	// Exclude are patterns of paths never read, in path.Match syntax on
	// slash-separated paths (no "**"). A pattern with a "/" matches the
	// path relative to the walked argument (the argument itself for a file
	// argument), or a directory on the way there, which excludes all of it;
	// a pattern without one matches the name of the file or of any
	// directory on the way. Excluded paths are left out silently: the
	// caller asked for it. Default: none.
	Exclude []string
	// SkipRepositoryFiles reports the files RepositoryFile recognises as
	// skipped instead of reading them. Default: false, every manifest file
	// is read.
	SkipRepositoryFiles bool
	// Match says by its base name whether a file found in a directory is
	// listed. Default: IsManifestFile.
	Match func(name string) bool
	// SkipHiddenDirectories leaves out, silently, the directories below a
	// walked one whose name starts with "." (.git). Default: false.
	SkipHiddenDirectories bool
}

// ValidateExclude checks that pattern is a valid Exclude pattern.
func ValidateExclude(pattern string) error {
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("exclude pattern %q: %w", pattern, err)
	}
	return nil
}

// Walk lists the sources paths stand for, in order: each file as is,
// each directory's manifests (Extensions, or what opts.Match matches) in
// lexical order, "-" as is. A path that does not exist is an error; a file
// that cannot be read is listed, for the read to say why.
func Walk(paths []string, opts WalkOptions) ([]Source, error) {
	for _, p := range opts.Exclude {
		if err := ValidateExclude(p); err != nil {
			return nil, err
		}
	}
	if opts.Match == nil {
		opts.Match = IsManifestFile
	}
	w := walker{opts: opts, charts: map[string]bool{}}
	for _, p := range paths {
		if p == "-" {
			w.sources = append(w.sources, Source{Path: p})
			continue
		}
		if err := w.walk(p); err != nil {
			return nil, err
		}
	}
	return w.sources, nil
}

type walker struct {
	opts    WalkOptions
	sources []Source
	// charts caches whether a directory holds a Helm chart (Chart.yaml).
	charts map[string]bool
}

func (w *walker) walk(arg string) error {
	info, err := os.Stat(arg)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		// A file argument is read whatever it is: a named pipe given
		// explicitly (/dev/stdin, a shell's <(...)) is meant to be read.
		if !w.excluded(filepath.ToSlash(filepath.Clean(arg))) {
			w.add(arg)
		}
		return nil
	}
	// WalkDir does not follow a symlinked root, which would walk nothing:
	// walk its target, and name the files under the path as given.
	// Symlinked directories below it are not followed, so a link cycle
	// cannot loop; symlinked files are read.
	root, err := filepath.EvalSymlinks(arg)
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// An unreadable directory below the argument is one bad
			// source, not the end of the walk.
			if p != root && d != nil && d.IsDir() {
				name := w.named(arg, root, p)
				w.sources = append(w.sources, Source{Path: name, Err: openError(name, err)})
				return fs.SkipDir
			}
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		name := filepath.Join(arg, rel)
		if w.excluded(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if w.opts.SkipHiddenDirectories && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			if w.opts.SkipRepositoryFiles && d.Name() == githubDir {
				w.sources = append(w.sources, Source{Path: name, Skip: githubReason})
				return fs.SkipDir
			}
			return nil
		}
		if !w.opts.Match(d.Name()) {
			return nil
		}
		if skip := notRegular(p); skip != "" {
			w.sources = append(w.sources, Source{Path: name, Skip: skip})
			return nil
		}
		w.add(name)
		return nil
	})
}

// named is p, found under root, named under the argument as given.
func (w *walker) named(arg, root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.Join(arg, rel)
}

// add lists a file to read, or to skip when it is a repository file.
func (w *walker) add(name string) {
	src := Source{Path: name}
	if w.opts.SkipRepositoryFiles {
		src.Skip = w.repositoryFile(name)
	}
	w.sources = append(w.sources, src)
}

// notRegular says why a file found in a directory is not read: a named
// pipe, socket or device would block the read or never end it, and a
// symlinked directory is not followed. Empty for a regular file, and for
// a file whose Stat fails, which its read reports.
func notRegular(p string) string {
	info, err := os.Stat(p)
	switch {
	case err != nil, info.Mode().IsRegular():
		return ""
	case info.IsDir():
		return "symbolic link to a directory, not followed"
	}
	return fmt.Sprintf("not a regular file (%s)", fileType(info.Mode()))
}

func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return m.Type().String()
}

// excluded says whether an Exclude pattern matches slashPath or a
// directory on the way to it.
func (w *walker) excluded(slashPath string) bool {
	if len(w.opts.Exclude) == 0 {
		return false
	}
	elems := strings.Split(slashPath, "/")
	for i, elem := range elems {
		prefix := strings.Join(elems[:i+1], "/")
		for _, pattern := range w.opts.Exclude {
			subject := elem
			if strings.Contains(pattern, "/") {
				subject = prefix
			}
			// Patterns were validated: Match cannot fail.
			if ok, _ := path.Match(pattern, subject); ok {
				return true
			}
		}
	}
	return false
}

// IsManifestFile tells whether a file's name or path ends in one of
// Extensions, in any case: the files a walk reads by default, and those
// crdguard diff reads from a git tree.
func IsManifestFile(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range Extensions {
		if ext == e {
			return true
		}
	}
	return false
}
