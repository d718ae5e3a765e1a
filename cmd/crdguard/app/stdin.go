package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"golang.org/x/term"
)

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
	switch {
	case len(readers) < 2:
	case slices.Equal(readers, slices.Repeat(readers[:1], len(readers))):
		times := fmt.Sprintf("%d times", len(readers))
		if len(readers) == 2 {
			times = "twice"
		}
		return usageError("standard input (-) can be read once, and it is given to %s %s", readers[0], times)
	default:
		return usageError("standard input (-) can be read once, and it is given to %s", strings.Join(slices.Compact(readers), " and "))
	}
	return nil
}

// inputPaths are the inputs of a command that reads standard input when
// given no path, as kubeconform does: paths as given, else "-". Without a
// path it fails closed when standard input is a terminal (nobody is going
// to type manifests; a forgotten PATH would wait for ever) or is read by
// one of flags already.
func inputPaths(streams Streams, paths []string, command string, flags ...pathFlag) ([]string, error) {
	if len(paths) > 0 {
		return paths, nil
	}
	if streams.inTerminal {
		return nil, usageError("no PATH given and standard input is a terminal: give files, directories or - (see '%s --help')", command)
	}
	for _, f := range flags {
		for _, p := range f.paths {
			if p == "-" {
				return nil, usageError("no PATH given, and standard input is read by %s: give the inputs as files or directories (see '%s --help')", f.name, command)
			}
		}
	}
	return []string{"-"}, nil
}

// isTerminal says whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// contextReader reads r until ctx is done, then fails every read with
// ctx's cause, even one blocked on a pipe whose writer never writes nor
// closes (`sleep 30 | crdguard validate -`). r is read by one goroutine,
// started at the first read, that copies it into a pipe; that goroutine
// stays blocked in r's read after cancellation, until the process ends.
func contextReader(ctx context.Context, r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	context.AfterFunc(ctx, func() { pr.CloseWithError(context.Cause(ctx)) })
	return &lazyPipe{start: sync.OnceFunc(func() {
		go func() {
			_, err := io.Copy(pw, r)
			pw.CloseWithError(err) // nil: io.EOF for the reader
		}()
	}), r: pr}
}

type lazyPipe struct {
	start func()
	r     *io.PipeReader
}

func (p *lazyPipe) Read(b []byte) (int, error) {
	p.start()
	return p.r.Read(b)
}
