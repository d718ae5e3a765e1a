package manifest

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
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
	// symlinked directory that loops back to one it is in or whose target
	// was read through another link already, or, with
	// WalkOptions.SkipRepositoryFiles, a file of a repository that is not
	// a manifest (RepositoryFile).
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
	w := walker{opts: opts, charts: map[string]bool{}, followed: map[string]string{}}
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
	// followed names, by the real path of its target, the first link to a
	// directory the walk followed: each is read once.
	followed map[string]string
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
	root, err := filepath.EvalSymlinks(arg)
	if err != nil {
		return err
	}
	return w.walkTree(arg, root, ".", nil)
}

// walkTree walks dir, a directory's real path, naming what it finds under
// arg as rel, dir's path relative to arg. WalkDir follows no link, so
// directory links are followed here, each target once: above holds the
// real directories the links followed to reach dir are in, so that a link
// to one of them, or to a directory above one, is seen as the loop it is.
func (w *walker) walkTree(arg, dir, rel string, above []string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		inDir, relErr := filepath.Rel(dir, p)
		if relErr != nil {
			return relErr
		}
		relPath := filepath.Join(rel, inDir)
		name := filepath.Join(arg, relPath)
		if err != nil {
			// An unreadable directory below the argument is one bad
			// source, not the end of the walk.
			if relPath != "." && d != nil && d.IsDir() {
				w.sources = append(w.sources, Source{Path: name, Err: openError(name, err)})
				return fs.SkipDir
			}
			return err
		}
		if relPath == "." {
			return nil
		}
		if w.excluded(filepath.ToSlash(relPath)) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if w.skipDirectory(name, d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		// Links are looked at before names: a linked directory is named
		// like a directory (samples -> ../update), not like a manifest.
		if d.Type()&fs.ModeSymlink != 0 {
			if target, ok := linkedDirectory(p); ok {
				if !w.skipDirectory(name, d.Name()) {
					w.follow(arg, relPath, target, append(slices.Clip(above), filepath.Dir(p)))
				}
				return nil
			}
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

// follow walks target, the real path of the directory link at rel under
// arg, unless it loops back to a directory in above, or was read already
// through another link: each is a skipped source that says so.
func (w *walker) follow(arg, rel, target string, above []string) {
	name := filepath.Join(arg, rel)
	for _, dir := range above {
		if dir == target || strings.HasPrefix(dir, target+string(filepath.Separator)) {
			w.sources = append(w.sources, Source{Path: name, Skip: "symbolic link to a directory it is in (a loop), not followed"})
			return
		}
	}
	if first, ok := w.followed[target]; ok {
		w.sources = append(w.sources, Source{Path: name, Skip: "symbolic link to a directory already read through " + first})
		return
	}
	w.followed[target] = name
	if err := w.walkTree(arg, target, rel, above); err != nil {
		w.sources = append(w.sources, Source{Path: name, Err: openError(name, err)})
	}
}

// skipDirectory says whether a directory below a walked one is left out,
// and lists it as skipped when that is to be said.
func (w *walker) skipDirectory(name, base string) bool {
	if w.opts.SkipHiddenDirectories && strings.HasPrefix(base, ".") {
		return true
	}
	if w.opts.SkipRepositoryFiles && base == githubDir {
		w.sources = append(w.sources, Source{Path: name, Skip: githubReason})
		return true
	}
	return false
}

// linkedDirectory returns the real path of the directory link p points
// to; false when p does not lead to a directory (a file, a dangling link,
// a cycle of links), which the read of p explains if it is read at all.
func linkedDirectory(p string) (string, bool) {
	info, err := os.Stat(p)
	if err != nil || !info.IsDir() {
		return "", false
	}
	target, err := filepath.EvalSymlinks(p)
	return target, err == nil
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
// pipe, socket or device would block the read or never end it. Empty for
// a regular file, and for a file whose Stat fails, which its read reports.
func notRegular(p string) string {
	info, err := os.Stat(p)
	if err != nil || info.Mode().IsRegular() {
		return ""
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
