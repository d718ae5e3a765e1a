package report

import (
	"path/filepath"
	"testing"

	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestTextGolden(t *testing.T) {
	tests := []struct {
		golden string
		opts   Options
	}{
		{"report.txt", Options{}},
		{"report-quiet.txt", Options{Quiet: true}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			golden.Assert(t, filepath.Join("testdata", tt.golden), render(t, Text, sampleReport(), tt.opts))
		})
	}
}

func TestText(t *testing.T) {
	deny := Finding{Field: "spec.replicas", Message: "Invalid value: 10: spec.replicas in body should be less than or equal to 5", Policy: "schema", Enforcement: v1alpha1.Deny}
	tests := []struct {
		name    string
		results []Result
		quiet   bool
		want    string
	}{
		{
			name:    "empty report",
			results: nil,
			want:    "0 objects: 0 allowed, 0 denied, 0 skipped, 0 errors\n",
		},
		{
			name:    "cluster-scoped allowed object",
			results: []Result{{Source: "ns.yaml", Line: 1, Kind: "Namespace", Name: "team-a", Operation: "CREATE"}},
			want: "ns.yaml:1 (document 1): Namespace team-a is valid (CREATE)\n" +
				"1 object: 1 allowed, 0 denied, 0 skipped, 0 errors\n",
		},
		{
			name:    "unknown line and operation",
			results: []Result{{Source: "-", Document: 3, Kind: "MySQLCluster", Namespace: "db", Name: "prod", Violations: []Finding{deny}}},
			want: "- (document 4): MySQLCluster db/prod is invalid:\n" +
				"  * spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 5\n" +
				"1 object: 0 allowed, 1 denied, 0 skipped, 0 errors\n",
		},
		{
			name: "policy finding without enforcement mark",
			results: []Result{{Source: "a.yaml", Line: 3, Kind: "Pod", Namespace: "x", Name: "p", Operation: "UPDATE",
				Violations: []Finding{{Field: "spec.containers[0].resources", Message: "Required value: set limits", Policy: "require-limits", Rule: "resources", Enforcement: v1alpha1.Deny}}}},
			want: "a.yaml:3 (document 1): Pod x/p is invalid (UPDATE):\n" +
				"  * [require-limits/resources] spec.containers[0].resources: Required value: set limits\n" +
				"1 object: 0 allowed, 1 denied, 0 skipped, 0 errors\n",
		},
		{
			name:    "skipped without reason",
			results: []Result{{Source: "a.yaml", Line: 1, Kind: "Deployment", Namespace: "x", Name: "web", Skipped: true}},
			want: "a.yaml:1 (document 1): Deployment x/web skipped\n" +
				"1 object: 0 allowed, 0 denied, 1 skipped, 0 errors\n",
		},
		{
			name: "source that is not a YAML stream",
			results: []Result{{Source: "types.go", NotStream: true, Line: 20, Kind: "Widget", Name: "WidgetSpec.Paused",
				Violations: []Finding{{Field: "spec.paused", Message: "drops false", Policy: "gotypes", Rule: "zero-value-omitted", Enforcement: v1alpha1.Warn}}}},
			want: "types.go:20: Widget WidgetSpec.Paused is valid:\n" +
				"  * [Warn] [gotypes/zero-value-omitted] spec.paused: drops false\n" +
				"1 object: 1 allowed, 0 denied, 0 skipped, 0 errors\n",
		},
		{
			name:    "input error",
			results: []Result{{Source: "bad.yaml", Line: 4, Document: 1, Error: "missing kind"}},
			want: "bad.yaml:4 (document 2): error: missing kind\n" +
				"0 objects and 1 unreadable input: 0 allowed, 0 denied, 0 skipped, 1 error\n",
		},
		{
			name: "quiet keeps problems and warnings only",
			results: []Result{
				{Source: "a.yaml", Line: 1, Kind: "Namespace", Name: "ok", Operation: "CREATE"},
				{Source: "a.yaml", Line: 5, Document: 1, Kind: "Namespace", Name: "warned", Operation: "CREATE", Warnings: []string{"deprecated"}},
				{Source: "a.yaml", Line: 9, Document: 2, Kind: "Deployment", Name: "web", Skipped: true, SkipReason: "no schema"},
				{Source: "a.yaml", Line: 20, Document: 3, Error: "missing kind"},
			},
			quiet: true,
			want: "a.yaml:5 (document 2): Namespace warned is valid (CREATE):\n" +
				"  Warning: deprecated\n" +
				"a.yaml:20 (document 4): error: missing kind\n" +
				"3 objects and 1 unreadable input: 2 allowed, 0 denied, 1 skipped, 1 error\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(render(t, Text, New(tt.results), Options{Quiet: tt.quiet}))
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
