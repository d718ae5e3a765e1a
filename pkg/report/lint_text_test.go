package report

import (
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestLintText(t *testing.T) {
	const file = "api/v1/widget_types.go"
	// decl is a kind's declaration, as crdguard lint lists every kind.
	decl := func(line int, kind string) Result {
		return Result{Source: file, NotStream: true, Line: line, APIVersion: "example.com/v1", Kind: kind}
	}
	// at is a Go field reached from kind, with findings.
	at := func(line int, kind, goName string, findings ...Finding) Result {
		r := decl(line, kind)
		r.Name, r.Violations = goName, findings
		return r
	}
	finding := func(e v1alpha1.Enforcement, rule, path, message string) Finding {
		return Finding{Field: path, Type: "FieldValueInvalid", Message: message, Policy: "gotypes", Rule: rule, Enforcement: e}
	}
	zeroDefault := finding(v1alpha1.Deny, "zero-value-default", "spec.replicas", "WidgetSpec.Replicas drops 0 on the wire; fix: make it a pointer")
	tests := []struct {
		name    string
		results []Result
		quiet   bool
		want    string
	}{
		{
			name:    "a clean kind is listed as checked",
			results: []Result{decl(11, "Widget")},
			want: file + ":11: kind Widget example.com/v1\n" +
				"1 kind checked: 0 errors, 0 warnings, 0 infos\n",
		},
		{
			name:    "quiet leaves clean kinds out but counts them",
			results: []Result{decl(11, "Widget"), decl(40, "Gadget")},
			quiet:   true,
			want:    "2 kinds checked: 0 errors, 0 warnings, 0 infos\n",
		},
		{
			name: "each severity in its own word",
			results: []Result{
				decl(11, "Widget"),
				at(20, "Widget", "WidgetSpec.Replicas", zeroDefault),
				at(21, "Widget", "WidgetSpec.Paused", finding(v1alpha1.Warn, "zero-value-omitted", "spec.paused", "WidgetSpec.Paused drops false")),
				at(22, "Widget", "WidgetSpec.Raw", finding(v1alpha1.Audit, "opaque-type", "spec.raw", "WidgetSpec.Raw has its own MarshalJSON")),
			},
			quiet: true,
			want: file + ":20: WidgetSpec.Replicas in Widget example.com/v1\n" +
				"  error [zero-value-default] spec.replicas: WidgetSpec.Replicas drops 0 on the wire; fix: make it a pointer\n" +
				file + ":21: WidgetSpec.Paused in Widget example.com/v1\n" +
				"  warning [zero-value-omitted] spec.paused: WidgetSpec.Paused drops false\n" +
				file + ":22: WidgetSpec.Raw in Widget example.com/v1\n" +
				"  info [opaque-type] spec.raw: WidgetSpec.Raw has its own MarshalJSON\n" +
				"1 kind checked: 1 error, 1 warning, 1 info\n",
		},
		{
			name: "a field shared by two kinds is one finding",
			results: []Result{
				at(20, "Gadget", "WidgetSpec.Replicas", zeroDefault),
				at(20, "Widget", "WidgetSpec.Replicas", zeroDefault),
			},
			want: file + ":20: WidgetSpec.Replicas in Gadget example.com/v1, Widget example.com/v1\n" +
				"  error [zero-value-default] spec.replicas: WidgetSpec.Replicas drops 0 on the wire; fix: make it a pointer\n" +
				"2 kinds checked: 1 error, 0 warnings, 0 infos\n",
		},
		{
			name: "more kinds than a glance counts",
			results: []Result{
				at(20, "A", "WidgetSpec.Replicas", zeroDefault),
				at(20, "B", "WidgetSpec.Replicas", zeroDefault),
				at(20, "C", "WidgetSpec.Replicas", zeroDefault),
				at(20, "D", "WidgetSpec.Replicas", zeroDefault),
			},
			want: file + ":20: WidgetSpec.Replicas in A example.com/v1, B example.com/v1, C example.com/v1, D example.com/v1 (4 kinds)\n" +
				"  error [zero-value-default] spec.replicas: WidgetSpec.Replicas drops 0 on the wire; fix: make it a pointer\n" +
				"4 kinds checked: 1 error, 0 warnings, 0 infos\n",
		},
		{
			name: "a field reached by several paths is one finding",
			results: []Result{at(30, "Widget", "Probe.Period",
				finding(v1alpha1.Warn, "zero-value-omitted", "spec.liveness.period", "Probe.Period drops 0"),
				finding(v1alpha1.Warn, "zero-value-omitted", "spec.readiness.period", "Probe.Period drops 0"),
				finding(v1alpha1.Warn, "zero-value-omitted", "spec.startup.period", "Probe.Period drops 0"),
			)},
			want: file + ":30: Probe.Period in Widget example.com/v1\n" +
				"  warning [zero-value-omitted] spec.liveness.period (and 2 more): Probe.Period drops 0\n" +
				"1 kind checked: 0 errors, 1 warning, 0 infos\n",
		},
		{
			name: "findings at one place about different kinds get a heading each",
			results: []Result{
				at(26, "Gadget", "Template.Metadata", finding(v1alpha1.Deny, "pruned-field", "spec.a.metadata", "Template.Metadata is pruned at spec.a.metadata")),
				at(26, "Widget", "Template.Metadata", finding(v1alpha1.Deny, "pruned-field", "spec.b.metadata", "Template.Metadata is pruned at spec.b.metadata")),
			},
			want: file + ":26: Template.Metadata in Gadget example.com/v1\n" +
				"  error [pruned-field] spec.a.metadata: Template.Metadata is pruned at spec.a.metadata\n" +
				file + ":26: Template.Metadata in Widget example.com/v1\n" +
				"  error [pruned-field] spec.b.metadata: Template.Metadata is pruned at spec.b.metadata\n" +
				"2 kinds checked: 2 errors, 0 warnings, 0 infos\n",
		},
		{
			name: "a finding about the whole kind has no path",
			results: []Result{{Source: file, NotStream: true, Line: 11, APIVersion: "example.com/v1", Kind: "Widget",
				Violations: []Finding{finding(v1alpha1.Deny, "missing-crd", "<nil>", "no CRD defines example.com/v1 Widget")}}},
			want: file + ":11: kind Widget example.com/v1\n" +
				"  error [missing-crd] no CRD defines example.com/v1 Widget\n" +
				"1 kind checked: 1 error, 0 warnings, 0 infos\n",
		},
		{
			name:    "what comes from the input cannot drive the terminal",
			results: []Result{at(20, "Widget", "WidgetSpec.\x1b[2J", finding(v1alpha1.Deny, "pruned-field", "spec.\x1b[2J", "gone\nforged line"))},
			want: file + `:20: WidgetSpec.\x1b[2J in Widget example.com/v1` + "\n" +
				`  error [pruned-field] spec.\x1b[2J: gone\nforged line` + "\n" +
				"1 kind checked: 1 error, 0 warnings, 0 infos\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(render(t, Text, New(tt.results), Options{Command: "lint", Quiet: tt.quiet}))
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
