package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/testsuite"
)

type testOptions struct {
	output string
	quiet  bool
	crds   []string
}

func newTestCommand(streams Streams) *cobra.Command {
	o := &testOptions{output: string(report.Text)}
	cmd := &cobra.Command{
		Use:   "test [flags] PATH...",
		Short: "Run declarative test suites of GuardPolicies and CRDs",
		Long: `Run the test suites under each PATH: files named crdguard-test.yaml or
NAME.crdguard-test.yaml in a directory and its subdirectories, or a suite file
given by name. A suite names CRDs, GuardPolicies and objects, and the verdict
each request must get: the object's result and every rule's findings with their
field paths (docs/testsuite.md). Each case is evaluated by the engine of
crdguard validate and the webhook.

--crds loads CRDs into every suite beside the suite's own crds, for suites of
policies whose CRDs ship with the operator rather than with the suite (the
policy library's, run against an operator's release).

Exit codes: 0 every case passed, 1 a case failed, 2 a suite is invalid (an
unknown field, a missing file, ...), names no suite, or a case could not be
evaluated.`,
		Example: `  crdguard test examples/mysql
  crdguard test policies/ -o junit > crdguard-test.xml
  crdguard test --crds eck-crds.yaml policies/eck`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args, streams)
		},
	}
	f := cmd.Flags()
	f.VarP(newOutputFlag(&o.output, string(report.Text), string(report.JUnit)), "output", "o", `output format: "text" or "junit"`)
	f.BoolVarP(&o.quiet, "quiet", "q", false, "text output: print only the cases that did not pass")
	f.StringArrayVar(&o.crds, "crds", nil, "CRD file or directory loaded into every suite beside its own crds (repeatable)")
	return cmd
}

// suiteRun is one suite and the outcome of its cases.
type suiteRun struct {
	path, name string
	cases      []testsuite.CaseResult
}

func (o *testOptions) run(ctx context.Context, paths []string, streams Streams) error {
	// Each suite reads the --crds paths again, so standard input, which
	// can be read once, is no CRD source here.
	for _, path := range o.crds {
		if path == "-" {
			return usageError("--crds cannot read standard input: each suite loads the CRDs, give a file or directory")
		}
		if _, err := os.Stat(path); err != nil {
			return inputError(fmt.Errorf("--crds: %w", err))
		}
	}
	files, err := testsuite.Find(paths...)
	if err != nil {
		return inputError(err)
	}
	// Every suite is loaded before any runs, so that one invalid suite
	// fails the run with all their errors and no partial report.
	suites := make([]*testsuite.Suite, 0, len(files))
	var loadErrs []error
	for _, file := range files {
		s, err := testsuite.Options{CRDs: o.crds}.Load(ctx, file)
		if err != nil {
			loadErrs = append(loadErrs, err)
			continue
		}
		suites = append(suites, s)
	}
	if err := errors.Join(loadErrs...); err != nil {
		return inputError(err)
	}
	runs := make([]suiteRun, len(suites))
	for i, s := range suites {
		runs[i] = suiteRun{path: s.Path, name: s.Metadata.Name, cases: s.Run(ctx)}
	}
	if ctx.Err() != nil {
		return &exitError{code: ExitInternal, err: ctx.Err()}
	}
	var werr error
	if o.output == string(report.JUnit) {
		werr = writeTestJUnit(streams.Out, runs)
	} else {
		werr = o.writeText(streams.Out, runs)
	}
	if werr != nil {
		return &exitError{code: ExitInternal, err: werr}
	}
	t := tally(runs)
	switch {
	case t.errors > 0:
		return exitCode(ExitUsage)
	case t.failed > 0:
		return exitCode(ExitViolations)
	}
	return nil
}

// testTally counts the cases of a run by outcome.
type testTally struct{ cases, passed, failed, errors int }

func tally(runs []suiteRun) testTally {
	var t testTally
	for _, r := range runs {
		for i := range r.cases {
			t.cases++
			switch c := &r.cases[i]; {
			case c.Err != nil:
				t.errors++
			case c.Passed():
				t.passed++
			default:
				t.failed++
			}
		}
	}
	return t
}

// writeText prints each suite, a line per case, and under a case that
// did not pass every expectation with what the request got.
func (o *testOptions) writeText(w io.Writer, runs []suiteRun) error {
	ew := &firstErrorWriter{w: w}
	for _, r := range runs {
		ew.printf("%s: TestSuite %s\n", r.path, r.name)
		for i := range r.cases {
			c := &r.cases[i]
			request := fmt.Sprintf("(%s %s)", c.Operation, c.Object)
			switch {
			case c.Err != nil:
				ew.printf("  ERROR %s %s: %v\n", c.Name, request, c.Err)
			case c.Passed():
				if !o.quiet {
					ew.printf("  PASS  %s\n", c.Name)
				}
			default:
				ew.printf("  FAIL  %s %s\n", c.Name, request)
				for _, line := range failureLines(c) {
					ew.printf("          %s\n", line)
				}
			}
		}
	}
	t := tally(runs)
	ew.printf("%s: %d passed, %d failed, %s\n", countOf(t.cases, "case"), t.passed, t.failed, countOf(t.errors, "error"))
	return ew.err
}

// failureLines are every expectation of a case that did not pass, marked
// ok or FAIL with what was wanted and got, then the findings it did not
// expect.
func failureLines(c *testsuite.CaseResult) []string {
	var lines []string
	for _, check := range c.Checks {
		mark := "ok  "
		if !check.OK {
			mark = "FAIL"
		}
		lines = append(lines, fmt.Sprintf("%s %s: want %s, got %s", mark, check.Subject, check.Want, check.Got))
	}
	for _, f := range c.Unexpected {
		lines = append(lines, fmt.Sprintf("FAIL unexpected: [%s] [%s/%s] %s: %s", f.Enforcement, f.Policy, f.Rule, f.Field, f.Message))
	}
	return lines
}

// firstErrorWriter keeps the first write error, so that printing stays readable.
type firstErrorWriter struct {
	w   io.Writer
	err error
}

func (e *firstErrorWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
