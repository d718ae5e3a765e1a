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
	checkUsageErrors(t, []usageErrorCase{{
		name:   "a kind without its CRD",
		args:   []string{"webhook-config", "--policies", examplePolicy},
		stderr: "crdguard: GuardPolicy mysql-safety: kind MySQLCluster.db.example.io has no resource: no CRD or built-in API serves it\n",
	}, {
		name:   "no policies",
		args:   []string{"webhook-config", "--crds", exampleCRD},
		stderr: "crdguard: --policies is required\n",
	}, {
		name:   "an unknown format",
		args:   []string{"webhook-config", "--policies", examplePolicy, "--crds", exampleCRD, "-o", "json"},
		stderr: "crdguard: invalid argument \"json\" for \"-o, --output\" flag: unknown output format \"json\": valid formats are values, kustomize\nRun 'crdguard webhook-config --help' for usage.\n",
	}})
}
