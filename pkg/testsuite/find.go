package testsuite

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the name of a suite file; NAME.crdguard-test.yaml is one too,
// for directories that hold several suites.
const FileName = "crdguard-test.yaml"

// IsSuiteFile tells whether a file's base name makes it a suite file.
func IsSuiteFile(name string) bool {
	return name == FileName || strings.HasSuffix(name, "."+FileName)
}

// Find returns the suite files of paths, in path then lexical order. A file
// is a suite whatever its name; a directory is walked for suite files,
// leaving out hidden directories (.git). A directory without one is an
// error, since running no suite would pass.
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
		found := 0
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && p != path && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			case !d.IsDir() && IsSuiteFile(d.Name()):
				out = append(out, p)
				found++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, fmt.Errorf("%s: no test suite (%s or NAME.%s) in it", path, FileName, FileName)
		}
	}
	return out, nil
}
