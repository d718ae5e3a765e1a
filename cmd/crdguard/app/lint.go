package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema/gotypes"
)

type lintOptions struct {
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

Checks (error findings fail the run; warnings and infos do not, unless
--fail-on says so):
` + checkList(),
		Example: `  crdguard lint --crds config/crd/bases ./api/...
  crdguard lint --crds config/crd/bases --severity zero-value-omitted=off ./api/v1
  crdguard lint --crds config/crd/bases --fail-on warning ./api/...
  crdguard lint -o sarif ./api/... > lint.sarif`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args, streams)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.crds, "crds", nil, "CRD file or directory to compare with (repeatable)")
	f.StringArrayVar(&o.severity, "severity", nil, "CHECK=error|warning|info|off: override a check's severity (repeatable)")
	o.addReportFlags(f, "text output: print only places with findings")
	f.Var(newChoiceFlag(&o.failOn, string(gotypes.Error), string(gotypes.Warning), string(gotypes.Info)), "fail-on", "lowest severity that fails the run (exit 1): error, warning or info")
	return cmd
}

// checkList renders the registry for the help text, so it cannot go stale.
func checkList() string {
	var b strings.Builder
	for _, c := range gotypes.Checks() {
		fmt.Fprintf(&b, "  %-25s %-7s %s\n", c.Name, c.Severity, c.Doc)
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
	kinds, err := gotypes.Load(ctx, "", patterns...)
	if err != nil {
		return inputError(err)
	}
	if len(kinds) == 0 {
		// Fail closed: a mistyped pattern must not pass as a clean run.
		return usageError("no CRD root types (+kubebuilder:object:root=true, or embedded TypeMeta and ObjectMeta) in %s", strings.Join(patterns, " "))
	}
	findings, err := gotypes.Lint(kinds, opts)
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

// severityRank orders the severities --fail-on accepts.
var severityRank = map[gotypes.Severity]int{gotypes.Info: 1, gotypes.Warning: 2, gotypes.Error: 3}

// lintResults turns findings into one report result per Go source line and
// kind, so that every output format, SARIF included, points at the Go
// file:line of the field. Each kind also gets a result at its type
// declaration, so a clean kind is listed as checked.
func lintResults(kinds []*gotypes.Kind, findings []gotypes.Finding) []report.Result {
	type key struct {
		file string
		line int
		kind string
	}
	byKey := map[key]*report.Result{}
	var order []key
	result := func(k key, apiVersion, kind, name string) *report.Result {
		if r, ok := byKey[k]; ok {
			return r
		}
		byKey[k] = &report.Result{Source: displayFile(k.file), NotStream: true, Line: k.line, APIVersion: apiVersion, Kind: kind, Name: name}
		order = append(order, k)
		return byKey[k]
	}
	for _, k := range kinds {
		gvk := k.GroupVersionKind
		result(key{k.Pos.Filename, k.Pos.Line, gvk.String()}, gvk.GroupVersion().String(), gvk.Kind, "")
	}
	for _, f := range findings {
		r := result(key{f.Pos.Filename, f.Pos.Line, f.Kind.String()}, f.Kind.GroupVersion().String(), f.Kind.Kind, f.GoName)
		r.Violations = append(r.Violations, report.Finding{
			Field:       f.Path,
			Type:        string(f.Type),
			Message:     f.Message + "; fix: " + f.Hint,
			Policy:      "gotypes",
			Rule:        f.Check,
			Enforcement: enforcement(f.Severity),
		})
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		return a.kind < b.kind
	})
	results := make([]report.Result, len(order))
	for i, k := range order {
		results[i] = *byKey[k]
	}
	return results
}

// enforcement maps severities onto the report's levels: only errors deny.
func enforcement(s gotypes.Severity) v1alpha1.Enforcement {
	switch s {
	case gotypes.Error:
		return v1alpha1.Deny
	case gotypes.Warning:
		return v1alpha1.Warn
	}
	return v1alpha1.Audit
}

// displayFile prints files under the working directory relative to it, as
// editors and code scanning services resolve them; others stay absolute.
func displayFile(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
