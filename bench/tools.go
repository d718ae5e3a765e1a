package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// A tool is one of the CLIs under comparison.
type tool struct {
	name string
	path string
	args func(dir string) []string
	// parse reads the tool's JSON report.
	parse func(stdout []byte) (outcome, error)
}

// outcome is what a tool reported about a corpus.
type outcome struct {
	objects, invalid, errors, skipped int
	// flagged maps "Kind/name" of every object the tool did not pass to the
	// tool's first message about it.
	flagged map[string]string
}

// run is one timed execution of a tool.
type run struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes, sampled; 0 where the OS does not say
	exitCode  int
	outcome   outcome
}

// execute runs t on dir and parses its report. The report goes to memory,
// for both tools alike, so disk speed is not measured.
func execute(t tool, dir string) (run, error) {
	r, stdout, stderr, err := measure(t.name, exec.Command(t.path, t.args(dir)...))
	if err != nil {
		return run{}, err
	}
	if r.outcome, err = t.parse(stdout.Bytes()); err != nil {
		return r, fmt.Errorf("%s exited with %d and no readable report (%v); stderr:\n%s", t.name, r.exitCode, err, tail(stderr.String()))
	}
	return r, nil
}

// measure runs cmd and times it: wall and CPU time, peak RSS and exit
// code. Exiting non-zero is not an error here: each caller knows which exit
// code its run must have. The output is written to a file and read once
// cmd has exited, not copied from a pipe while it runs: a report of stored
// objects is tens of megabytes, and copying it would take CPU from the
// measured process on a two-core machine.
func measure(name string, cmd *exec.Cmd) (r run, stdout, stderr *bytes.Buffer, err error) {
	out, err := os.CreateTemp("", "crdguard-bench-stdout-")
	if err != nil {
		return run{}, nil, nil, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	stderr = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, stderr
	// The harness's garbage, such as the last report it parsed, is
	// collected now rather than while cmd competes for the same cores.
	debug.FreeOSMemory()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return run{}, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	peakRSS := watchPeakRSS(cmd.Process.Pid)
	err = cmd.Wait()
	wall := time.Since(start)
	rss := peakRSS()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return run{}, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	data, err := os.ReadFile(out.Name())
	if err != nil {
		return run{}, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	ps := cmd.ProcessState
	return run{wall: wall, cpu: ps.UserTime() + ps.SystemTime(), maxRSS: rss, exitCode: ps.ExitCode()}, bytes.NewBuffer(data), stderr, nil
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// crdguardStored is the name of crdguard run with the extra flags of
// crdguardTool's stored variant.
const crdguardStored = "crdguard-stored"

func crdguard(path string, crdDirs []string) tool {
	return crdguardTool("crdguard", path, crdDirs)
}

// crdguardTool runs crdguard validate; the crdguardStored variant also
// turns unknown fields into warnings and those into errors (so the corpus's
// verdicts stay the same) and adds every accepted object as it would be
// stored to the report.
func crdguardTool(name, path string, crdDirs []string) tool {
	return tool{
		name: name,
		path: path,
		args: func(dir string) []string {
			args := []string{"validate"}
			for _, d := range crdDirs {
				args = append(args, "--crds", d)
			}
			if name == crdguardStored {
				args = append(args, "--field-validation=Warn", "--warnings-as-errors", "--show-stored")
			}
			return append(args, "-o", "json", dir)
		},
		parse: func(stdout []byte) (outcome, error) {
			var report struct {
				Results []struct {
					Kind, Name string
					Allowed    bool
					SkipReason string
					Error      string
					Violations []struct{ Field, Message string }
				}
				Summary struct{ Objects, Allowed, Denied, Skipped, Errors int }
			}
			if err := json.Unmarshal(stdout, &report); err != nil {
				return outcome{}, err
			}
			o := outcome{
				objects: report.Summary.Objects, invalid: report.Summary.Denied,
				errors: report.Summary.Errors, skipped: report.Summary.Skipped,
				flagged: map[string]string{},
			}
			for _, r := range report.Results {
				switch {
				case r.Allowed:
				case r.Error != "":
					o.flagged[r.Kind+"/"+r.Name] = "error: " + r.Error
				case r.SkipReason != "":
					o.flagged[r.Kind+"/"+r.Name] = "skipped: " + r.SkipReason
				case len(r.Violations) > 0:
					o.flagged[r.Kind+"/"+r.Name] = r.Violations[0].Field + ": " + r.Violations[0].Message
				default:
					o.flagged[r.Kind+"/"+r.Name] = "denied"
				}
			}
			return o, nil
		},
	}
}

func kubeconform(path, schemaDir string, workers int) tool {
	return tool{
		name: "kubeconform",
		path: path,
		args: func(dir string) []string {
			return []string{
				"-schema-location", kubeconformSchemaLocation(schemaDir),
				"-strict", "-summary", "-output", "json", "-n", fmt.Sprint(workers), dir,
			}
		},
		parse: func(stdout []byte) (outcome, error) {
			// Without -verbose the report lists only objects that did not pass.
			var report struct {
				Resources []struct{ Kind, Name, Status, Msg string }
				Summary   struct{ Valid, Invalid, Errors, Skipped int }
			}
			if err := json.Unmarshal(stdout, &report); err != nil {
				return outcome{}, err
			}
			s := report.Summary
			o := outcome{
				objects: s.Valid + s.Invalid + s.Errors + s.Skipped, invalid: s.Invalid,
				errors: s.Errors, skipped: s.Skipped,
				flagged: map[string]string{},
			}
			for _, r := range report.Resources {
				o.flagged[r.Kind+"/"+r.Name] = r.Status + ": " + r.Msg
			}
			return o, nil
		},
	}
}

// check compares a run with what the corpus holds: the right exit code,
// every object counted, exactly the broken objects reported invalid.
func check(t tool, r run, objects []object) error {
	wantExit := 0
	var problems []string
	var missed, wrong []string
	invalid := 0
	for _, o := range objects {
		key := o.kind + "/" + o.name
		msg, flagged := r.outcome.flagged[key]
		switch {
		case o.invalid != "":
			invalid++
			wantExit = 1
			if !flagged {
				missed = append(missed, fmt.Sprintf("%s (%s) passed", key, o.invalid))
			}
		case flagged:
			wrong = append(wrong, fmt.Sprintf("%s is valid but got %s", key, msg))
		}
	}
	if r.exitCode != wantExit {
		problems = append(problems, fmt.Sprintf("exit code %d, want %d", r.exitCode, wantExit))
	}
	if got := r.outcome.objects; got != len(objects) {
		problems = append(problems, fmt.Sprintf("%d objects counted, want %d", got, len(objects)))
	}
	if got := r.outcome.invalid; got != invalid {
		problems = append(problems, fmt.Sprintf("%d invalid objects counted, want %d", got, invalid))
	}
	if r.outcome.errors != 0 || r.outcome.skipped != 0 {
		problems = append(problems, fmt.Sprintf("%d errors and %d skipped, want none", r.outcome.errors, r.outcome.skipped))
	}
	problems = append(problems, firstFew(missed)...)
	problems = append(problems, firstFew(wrong)...)
	if len(problems) > 0 {
		return fmt.Errorf("%s: results do not match the corpus:\n  %s", t.name, strings.Join(problems, "\n  "))
	}
	return nil
}

// firstFew keeps the first few of a sorted list, saying how many were left out.
func firstFew(lines []string) []string {
	const n = 5
	sort.Strings(lines)
	if len(lines) <= n {
		return lines
	}
	return append(lines[:n], fmt.Sprintf("... and %d more", len(lines)-n))
}
