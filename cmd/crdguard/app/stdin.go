package app

import "strings"

// pathFlag is a flag (or the arguments) and the paths given to it.
type pathFlag struct {
	name  string
	paths []string
}

// stdinOnce refuses "-" in more than one place: standard input can be read
// once, and the second reader would get nothing and pass.
func stdinOnce(flags ...pathFlag) error {
	var readers []string
	for _, f := range flags {
		for _, p := range f.paths {
			if p == "-" {
				readers = append(readers, f.name)
			}
		}
	}
	if len(readers) > 1 {
		return usageError("standard input (-) can be read once, and it is given to %s", strings.Join(readers, " and "))
	}
	return nil
}
