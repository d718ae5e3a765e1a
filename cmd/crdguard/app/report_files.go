package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/crdguard/crdguard/internal/version"
	"github.com/crdguard/crdguard/pkg/report"
)

// reportFile is one --report FORMAT=FILE: the run's report in another
// format than -o's, written to a file, so that one run feeds a log, code
// scanning and a job summary at once.
type reportFile struct {
	format report.Format
	path   string
}

// reportFiles is the --report flag.
type reportFiles []reportFile

func (f *reportFiles) String() string {
	parts := make([]string, len(*f))
	for i, r := range *f {
		parts[i] = string(r.format) + "=" + r.path
	}
	return strings.Join(parts, ",")
}

func (f *reportFiles) Type() string { return "FORMAT=FILE" }

// Set adds one FORMAT=FILE. Standard output is -o's, and a file given
// twice would hold whichever report was written last.
func (f *reportFiles) Set(value string) error {
	name, path, ok := strings.Cut(value, "=")
	if !ok || path == "" {
		return fmt.Errorf("%q: want FORMAT=FILE, such as sarif=crdguard.sarif", value)
	}
	format, err := report.ParseFormat(name)
	if err != nil {
		return err
	}
	if path == "-" {
		return fmt.Errorf("%q: standard output gets the -o format; give a file", value)
	}
	for _, r := range *f {
		if filepath.Clean(r.path) == filepath.Clean(path) {
			return fmt.Errorf("%q: %s is given twice", value, path)
		}
	}
	*f = append(*f, reportFile{format: format, path: path})
	return nil
}

// checkWritable fails, as a usage error, when a report file could not be
// written: found only after the run, that would lose the run's verdict
// to an exit 3 for a mistyped path. A file that is there is opened for
// writing and left as it is; one that is not is created and removed, so
// that a run that writes no report leaves nothing behind.
func (f reportFiles) checkWritable() error {
	for _, r := range f {
		file, err := os.OpenFile(r.path, os.O_WRONLY, 0)
		if errors.Is(err, fs.ErrNotExist) {
			file, err = os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err == nil {
				err = os.Remove(r.path)
			}
		}
		if file != nil {
			file.Close()
		}
		if err != nil {
			return usageError("--report %s=%s: %w", r.format, r.path, err)
		}
	}
	return nil
}

// checkReportFiles is checkWritable for the --report flag of cmd, if it
// has one.
func checkReportFiles(cmd *cobra.Command) error {
	if flag := cmd.Flags().Lookup("report"); flag != nil {
		if files, ok := flag.Value.(*reportFiles); ok {
			return files.checkWritable()
		}
	}
	return nil
}

// write writes the report file, naming it when that fails, which after
// checkWritable is the machine's fault (a full disk): the run's verdict
// stands, but the step that reads the file gets an error, not an empty
// report.
func (r reportFile) write(data []byte) error {
	if err := os.WriteFile(r.path, data, 0o644); err != nil {
		return &exitError{code: ExitInternal, err: fmt.Errorf("--report %s=%s: %w", r.format, r.path, err)}
	}
	return nil
}

// reportWriters stream one report to standard output and to every --report
// file as results complete.
type reportWriters struct {
	writers []*report.Writer
	// files are the --report files' buffers, written when the report ends.
	files   []reportFile
	buffers []*bytes.Buffer
}

// newReportWriters starts the report of command on out in -o's format and
// in each --report file's.
func (r *reportOptions) newReportWriters(out io.Writer, command string) (*reportWriters, error) {
	opts := report.Options{Quiet: r.quiet, ToolVersion: version.Get(), Command: command}
	main, err := report.NewWriter(out, r.output, opts)
	if err != nil {
		return nil, err
	}
	w := &reportWriters{writers: []*report.Writer{main}, files: r.files}
	for _, f := range r.files {
		buf := &bytes.Buffer{}
		fw, err := report.NewWriter(buf, f.format, opts)
		if err != nil {
			return nil, err
		}
		w.writers, w.buffers = append(w.writers, fw), append(w.buffers, buf)
	}
	return w, nil
}

// Add writes res to every report.
func (w *reportWriters) Add(res report.Result) error {
	for _, rw := range w.writers {
		if err := rw.Add(res); err != nil {
			return err
		}
	}
	return nil
}

// Close ends every report, writes the files, and returns the summary.
func (w *reportWriters) Close() (report.Summary, error) {
	var summary report.Summary
	for i, rw := range w.writers {
		s, err := rw.Close()
		if err != nil {
			return s, err
		}
		if i == 0 {
			summary = s
			continue
		}
		if err := w.files[i-1].write(w.buffers[i-1].Bytes()); err != nil {
			return summary, err
		}
	}
	return summary, nil
}
