package app

import (
	"bytes"
	"strings"
	"testing"
)

// Where the environment sets CI, text reports print only what has
// findings, and the summary: a CI log of 2,000 valid files is then one
// line. --quiet=false lists every object again.
func TestQuietByDefaultInCI(t *testing.T) {
	run := func(ci bool, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		code := Run(t.Context(), append([]string{"validate", "--crds", exampleCRD}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, CI: ci})
		if code != ExitViolations {
			t.Fatalf("%v: exit %d, want 1; stderr %q", args, code, errOut.String())
		}
		return out.String()
	}
	const valid = "good.yaml:1 (document 1): MySQLCluster shop/prod is valid (CREATE)\n"
	const invalid = "bad.yaml:3 (document 1): MySQLCluster shop/staging is invalid (CREATE):\n"
	for _, tc := range []struct {
		name      string
		ci        bool
		args      []string
		wantValid bool
	}{
		{"not in CI", false, nil, true},
		{"in CI", true, nil, false},
		{"in CI, --quiet=false", true, []string{"--quiet=false"}, true},
		{"not in CI, -q", false, []string{"-q"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := run(tc.ci, append(tc.args, goodYAML, badYAML)...)
			if strings.Contains(out, valid) != tc.wantValid || !strings.Contains(out, invalid) || !strings.HasSuffix(out, "3 objects: 1 allowed, 2 denied, 0 skipped, 0 errors\n") {
				t.Errorf("output lists the valid object: %v, want %v; the invalid one and the summary always:\n%s", strings.Contains(out, valid), tc.wantValid, out)
			}
		})
	}
	for value, want := range map[string]bool{"": false, "false": false, "0": false, "true": true, "1": true, "yes": true} {
		if got := ciEnvironment(value); got != want {
			t.Errorf("CI=%q: %v, want %v", value, got, want)
		}
	}
}
