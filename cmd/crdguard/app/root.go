package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/crdguard/crdguard/internal/version"
	"github.com/crdguard/crdguard/pkg/report"
)

// Exit codes, the same for every command.
const (
	ExitOK         = 0 // nothing at Deny level
	ExitViolations = 1 // violations, or breaking changes
	ExitUsage      = 2 // usage error or unreadable input
	ExitInternal   = 3 // crdguard itself failed
)

// Streams are the standard streams a command reads and writes.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	// inTerminal says whether In is a terminal, which no command reads
	// manifests from unless told to.
	inTerminal bool
	// CI says that the environment sets CI, as GitHub Actions, GitLab CI
	// and most CI systems do: text reports are quiet by default there, so
	// a log of thousands of files shows the failures and the summary.
	CI bool
}

// ciEnvironment says whether the value of the environment variable CI
// declares a CI system: set, and neither "false" nor "0".
func ciEnvironment(value string) bool {
	return value != "" && value != "false" && value != "0"
}

// exitError carries an exit code out of a command with the message to print.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

func inputError(err error) error { return &exitError{code: ExitUsage, err: err} }

// exitCode ends a command that ran to completion with a verdict.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit code %d", int(c)) }

// Run runs crdguard with args and returns the process exit code.
func Run(ctx context.Context, args []string, streams Streams) int {
	return runAs(ctx, "crdguard", args, streams)
}

// runAs is Run with the name that help and usage show for the root command.
func runAs(ctx context.Context, name string, args []string, streams Streams) (code int) {
	defer func() {
		// A bug must not look like a verdict: report it as an internal error.
		if r := recover(); r != nil {
			fmt.Fprintf(streams.Err, "crdguard: internal error: %v\n", r)
			code = ExitInternal
		}
	}()
	streams.inTerminal = isTerminal(streams.In)
	if streams.In != nil {
		streams.In = contextReader(ctx, streams.In)
	}
	root := newRootCommand(name, streams)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	var verdict exitCode
	var exit *exitError
	switch sig := signalled(ctx); {
	case sig != nil:
		// Whatever the command was doing, its result is incomplete.
		fmt.Fprintf(streams.Err, "crdguard: %v\n", sig)
		return sig.exitCode()
	case err == nil:
		return ExitOK
	case errors.As(err, &verdict):
		return int(verdict)
	case errors.As(err, &exit):
		fmt.Fprintf(streams.Err, "crdguard: %v\n", exit.err)
		return exit.code
	default:
		// cobra's own errors: unknown flags, commands, bad flag values and
		// arguments, explained by the help of the command they were given to.
		fmt.Fprintf(streams.Err, "crdguard: %v\nRun '%s --help' for usage.\n", err, cmd.CommandPath())
		return ExitUsage
	}
}

// reportOptions are the flags of every command that prints a report.
type reportOptions struct {
	output report.Format
	// extraOutput is the -o value that is not a report format, "" for a
	// report: what standard output gets instead of the report.
	extraOutput string
	quiet       bool
	files       reportFiles
}

// addReportFlags registers -o (text by default) and -q, on by default in
// CI; quietUsage says what -q leaves out. extraOutputs are the -o values,
// from outputFormats, that print something else than the report.
func (r *reportOptions) addReportFlags(f *pflag.FlagSet, streams Streams, quietUsage string, extraOutputs ...string) {
	r.output = report.Text
	if len(extraOutputs) > 0 {
		f.VarP(newReportOutputFlag(&r.output, &r.extraOutput, extraOutputs...), "output", "o", outputUsage(extraOutputs...))
	} else {
		f.VarP(&r.output, "output", "o", outputUsage())
	}
	f.BoolVarP(&r.quiet, "quiet", "q", streams.CI, quietUsage+"; the default where the environment sets CI (--quiet=false lists everything)")
	f.Var(&r.files, "report", "also write the report in FORMAT to FILE (repeatable): sarif=crdguard.sarif")
}

// writeReport prints rep as command's output and writes it to the --report
// files; failing to write it is an internal error.
func (r *reportOptions) writeReport(streams Streams, command string, rep report.Report) error {
	return r.writeReports(streams, func(w io.Writer, format report.Format) error {
		return report.Write(w, format, rep, report.Options{Quiet: r.quiet, ToolVersion: version.Get(), Command: command})
	})
}

// writeReports renders the report in -o's format to standard output and in
// each --report file's format to the file.
func (r *reportOptions) writeReports(streams Streams, render func(io.Writer, report.Format) error) error {
	if r.extraOutput == "" {
		if err := render(streams.Out, r.output); err != nil {
			return &exitError{code: ExitInternal, err: err}
		}
	}
	for _, f := range r.files {
		var buf bytes.Buffer
		if err := render(&buf, f.format); err != nil {
			return &exitError{code: ExitInternal, err: fmt.Errorf("--report %s=%s: %w", f.format, f.path, err)}
		}
		if err := f.write(buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// verdictExit is the exit code of a validate or diff run from its summary:
// 2 when an input could not be checked, 1 when a finding denies, else 0.
func verdictExit(s report.Summary) error {
	switch {
	case s.Errors > 0:
		return exitCode(ExitUsage)
	case s.Denied > 0:
		return exitCode(ExitViolations)
	}
	return nil
}

// outputUsage is the help of every command's -o flag, with the command's
// extra outputs.
func outputUsage(extraOutputs ...string) string {
	names := make([]string, 0, len(report.Formats()))
	for _, f := range report.Formats() {
		names = append(names, string(f))
	}
	return "output format: " + strings.Join(append(names, extraOutputs...), ", ")
}

// newRootCommand is the crdguard command, shown in help and usage as name.
func newRootCommand(name string, streams Streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "crdguard",
		Short: "Stop unsafe custom resources and CRD changes before they reach your controllers",
		Long: `crdguard validates custom resources against their CRD schemas with kube-apiserver's
own validation code (OpenAPI, CEL, list types, metadata, ratcheting), reports the
unknown fields the server would silently drop, and runs the same checks offline,
in CI and in an admission webhook.

Exit codes: 0 nothing denied, 1 violations, 2 usage or unreadable input,
3 internal error, 130 and 143 stopped by SIGINT and SIGTERM.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Get(),
		// Every output is checked before a run, so that a verdict is never
		// lost to a path that cannot be written.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return checkReportFiles(cmd) },
		// Use stays the binary's name; the kubectl plugin is shown as
		// kubectl runs it.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: name},
	}
	// --version prints what `crdguard version` does. Declared here so that
	// cobra gives it no -v: kubectl users type -v=N for verbosity, and a
	// plugin gets it as typed.
	root.Flags().Bool("version", false, "print the crdguard version, as crdguard version does")
	root.SetVersionTemplate(versionText())
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.Err)
	root.AddCommand(newValidateCommand(streams), newTestCommand(streams), newDiffCommand(streams), newLintCommand(streams), newAuditCommand(streams), newVAPCommand(streams), newWebhookConfigCommand(streams), newVersionCommand(streams))
	renameExamples(root, name)
	completeChoices(root)
	return root
}

// renameExamples shows the examples, written for the crdguard binary, as
// name runs them: at the start of a line and after a pipe.
func renameExamples(cmd *cobra.Command, name string) {
	cmd.Example = strings.NewReplacer("  crdguard ", "  "+name+" ", "| crdguard ", "| "+name+" ").Replace(cmd.Example)
	for _, c := range cmd.Commands() {
		renameExamples(c, name)
	}
}
