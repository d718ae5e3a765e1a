package app

import (
	"fmt"
	"slices"

	"github.com/crdguard/crdguard/pkg/report"
)

// The -o values that are not report formats: what vap and webhook-config
// print are Kubernetes objects and configuration, not findings.
const (
	outputYAML      = "yaml"
	outputValues    = "values"
	outputKustomize = "kustomize"
)

// outputFormats is every -o value of every crdguard command, one line
// each. The commands that print a report (validate, diff, lint, audit)
// take every report format; test, vap and webhook-config take the few
// here that make sense for what they print (newOutputFlag refuses any
// other), so that one name means one format everywhere.
var outputFormats = registerOutputFormats(
	string(report.Text),
	string(report.JSON),
	string(report.SARIF),
	string(report.JUnit),
	string(report.Markdown),
	outputYAML,
	outputValues,
	outputKustomize,
	outputMigrations,
)

func registerOutputFormats(names ...string) []string {
	for i, name := range names {
		if slices.Contains(names[:i], name) {
			panic(fmt.Sprintf("output format %q registered twice", name))
		}
	}
	return names
}
