package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema/gotypes"
)

type lintOptions struct {
	dir      string
	crds     []string
	severity []string
	reportOptions
	failOn string
}

func newLintCommand(streams Streams) *cobra.Command {
	o := &lintOptions{failOn: string(gotypes.Error)}
	cmd := &cobra.Command{
		Use:   "lint [flags] PACKAGE...",
		Short: "Prove that Go API types serialise to what their CRD schemas keep",
		Long: `Lint the CRD root types of Go packages (go list patterns such as ./api/...):
compute the JSON each type serialises to under encoding/json's rules and, with
--crds, compare it with the CRD's structural schema. Every finding names the Go
file:line of the field, the JSON path, a severity and a fix.

Without --crds only the checks that read the Go types alone run.

Packages load from the module that holds them: directory patterns in a
nested module (./api/... with its own go.mod) load from that module, and
-C DIR loads from DIR as go -C does. --crds paths stay relative to the
working directory.

Severities:
  error    a user loses data or is refused; fails the run
  warning  probably unintended
  info     the rest: worth knowing, rarely a defect
Only errors fail the run (exit 1) unless --fail-on says otherwise;
--severity CHECK=LEVEL re-rates one check. See docs/lint.md.

Checks, with their default severity:
` + checkList(),
		Example: `  crdguard lint --crds config/crd/bases ./api/...
  crdguard lint --crds config/crd/bases --severity zero-value-omitted=off ./api/v1
  crdguard lint --crds config/crd/bases --fail-on warning ./api/...
  crdguard lint -o sarif ./api/... > lint.sarif
  crdguard lint --crds example/prometheus-operator-crd-full -C pkg/apis/monitoring ./...`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args, streams)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.dir, "dir", "C", "", "load the packages from the module in `DIR`, as go -C does (--crds paths stay relative to the working directory)")
	f.StringArrayVar(&o.crds, "crds", nil, "CRD file or directory to compare with (repeatable)")
	f.StringArrayVar(&o.severity, "severity", nil, "CHECK=error|warning|info|off: override a check's severity (repeatable)")
	o.addReportFlags(f, streams, "text output: print only places with findings")
	f.Var(newChoiceFlag(&o.failOn, string(gotypes.Error), string(gotypes.Warning), string(gotypes.Info)), "fail-on", "lowest severity that fails the run (exit 1): error, warning or info")
	return cmd
}

// checkList renders the registry for the help text, so it cannot go stale.
func checkList() string {
	var b strings.Builder
	for _, c := range gotypes.Checks() {
		fmt.Fprintf(&b, "  %-25s %-8s %s\n", c.Name, c.Severity, c.Doc)
	}
	return b.String()
}

func (o *lintOptions) run(ctx context.Context, patterns []string, streams Streams) error {
	opts := gotypes.Options{Severity: map[string]gotypes.Severity{}}
	for _, s := range o.severity {
		name, level, ok := strings.Cut(s, "=")
		if !ok {
			return usageError("--severity %q: want CHECK=LEVEL", s)
		}
		opts.Severity[name] = gotypes.Severity(level)
	}
	if errs := opts.Validate(); len(errs) > 0 {
		return usageError("--severity: %v", errs.ToAggregate())
	}
	failOn := severityRank[gotypes.Severity(o.failOn)]
	crds, err := policies.Files{CRDs: o.crds, Stdin: streams.In}.LoadCRDs(ctx)
	if err != nil {
		return inputError(err)
	}
	opts.CRDs = crds
	dir, resolved, err := lintModule(o.dir, patterns)
	if err != nil {
		return inputError(err)
	}
	loading := startProgress(streams.Err, loadingStatus)
	kinds, err := gotypes.Load(ctx, dir, resolved...)
	loading.stop()
	if err != nil {
		return inputError(err)
	}
	if len(kinds) == 0 {
		// Fail closed: a mistyped pattern must not pass as a clean run.
		return usageError("no CRD root types (+kubebuilder:object:root=true, or embedded TypeMeta and ObjectMeta) in %s", strings.Join(patterns, " "))
	}
	findings, err := lintEachKind(kinds, opts)
	if err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	rep := report.New(lintResults(kinds, findings))
	if err := o.writeReport(streams, "lint", rep); err != nil {
		return err
	}
	if rep.Summary.Denied > 0 {
		return exitCode(ExitViolations)
	}
	for _, f := range findings {
		if severityRank[f.Severity] >= failOn {
			return exitCode(ExitViolations)
		}
	}
	return nil
}

// loadingStatus is the progress line of a package load, which on a cold
// build cache compiles every dependency and takes minutes: it says why, so
// that nobody stops a first run that is working.
func loadingStatus(elapsed time.Duration) string {
	return fmt.Sprintf("loading Go packages (first run compiles dependencies; later runs take seconds)… %ds", int(elapsed.Seconds()))
}

// severityRank orders the severities --fail-on accepts.
var severityRank = map[gotypes.Severity]int{gotypes.Info: 1, gotypes.Warning: 2, gotypes.Error: 3}
