package app

import (
	"testing"

	"github.com/crdguard/crdguard/internal/golden"
)

// TestWebhookConfigGolden renders examples/mysql's rules in each format;
// test/chart installs both outputs with helm and kustomize.
func TestWebhookConfigGolden(t *testing.T) {
	for _, format := range []string{"values", "kustomize"} {
		t.Run(format, func(t *testing.T) {
			r := crdguard(t, "", "webhook-config", "--policies", examplePolicy, "--crds", exampleCRD, "-o", format)
			if r.code != ExitOK || r.stder != "" {
				t.Fatalf("exit code = %d, stderr: %s", r.code, r.stder)
			}
			golden.Assert(t, "testdata/webhook-config/mysql."+format+".yaml", []byte(r.stdout))
		})
	}
}

func TestWebhookConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{{
		name:   "a kind without its CRD",
		args:   []string{"--policies", examplePolicy},
		stderr: "crdguard: GuardPolicy mysql-safety: kind MySQLCluster.db.example.io has no resource: no CRD or built-in API serves it\n",
	}, {
		name:   "no policies",
		args:   []string{"--crds", exampleCRD},
		stderr: "crdguard: --policies is required\n",
	}, {
		name:   "an unknown format",
		args:   []string{"--policies", examplePolicy, "--crds", exampleCRD, "-o", "json"},
		stderr: "crdguard: invalid argument \"json\" for \"-o, --output\" flag: unknown output format \"json\": valid formats are values, kustomize\nRun 'crdguard webhook-config --help' for usage.\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := crdguard(t, "", append([]string{"webhook-config"}, tt.args...)...)
			if r.code != ExitUsage {
				t.Errorf("exit code = %d, want %d", r.code, ExitUsage)
			}
			if r.stder != tt.stderr {
				t.Errorf("stderr = %q, want %q", r.stder, tt.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
		})
	}
}
