package testsuite

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// FileName is the name of a suite file; NAME.crdguard-test.yaml is one too,
// for directories that hold several suites.
const FileName = "crdguard-test.yaml"

// IsSuiteFile tells whether a file's base name makes it a suite file.
func IsSuiteFile(name string) bool {
	return name == FileName || strings.HasSuffix(name, "."+FileName)
}

// Find returns the suite files of paths, in path then lexical order. A file
// is a suite whatever its name; a directory is walked for suite files, as
// manifest.Walk walks one (a symlinked directory too), leaving out hidden
// directories (.git). A directory without one is an error, since running
// no suite would pass.
func Find(paths ...string) ([]string, error) {
	var out []string
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, path)
			continue
		}
		suites, err := findInDirectory(path)
		if err != nil {
			return nil, err
		}
		out = append(out, suites...)
	}
	return out, nil
}

// findInDirectory returns the suite files under dir. A suite file the walk
// does not read (a named pipe, a directory link that loops) and a
// directory it cannot list are errors, not notes: a suite left out would
// pass the run.
func findInDirectory(dir string) ([]string, error) {
	arg := dir
	if arg == "-" {
		arg = "./-" // Walk takes "-" for standard input, not a directory
	}
	sources, err := manifest.Walk([]string{arg}, manifest.WalkOptions{Match: IsSuiteFile, SkipHiddenDirectories: true})
	if err != nil {
		return nil, err
	}
	var suites []string
	for _, src := range sources {
		switch {
		case src.Err != nil:
			return nil, src.Err
		case src.Skip != "":
			return nil, &manifest.SourceError{Source: src.Path, Err: errors.New(src.Skip)}
		}
		suites = append(suites, src.Path)
	}
	if len(suites) == 0 {
		return nil, fmt.Errorf("%s: no test suite (%s or NAME.%s) in it", dir, FileName, FileName)
	}
	return suites, nil
}
