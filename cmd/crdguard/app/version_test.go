package app

import (
	"os/exec"
	"strings"
	"testing"
)

// Both spellings print the same two lines.
func TestVersion(t *testing.T) {
	want := versionText()
	if !strings.HasPrefix(want, "crdguard (devel)\nkubernetes validation: k8s.io/apiextensions-apiserver ") {
		t.Errorf("version text = %q", want)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := crdguard(t, "", args...)
		if r.code != ExitOK || r.stdout != want || r.stder != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0, %q and nothing", args, r.code, r.stdout, r.stder, want)
		}
	}
}

// A built binary names the apiextensions-apiserver go.mod requires, read
// from its build information.
func TestVersionOfBinary(t *testing.T) {
	out, err := exec.Command(crdguardBinary(t), "--version").Output()
	if err != nil {
		t.Fatalf("crdguard --version: %v", err)
	}
	// The first line's version depends on how go build stamps the checkout.
	first, second, _ := strings.Cut(string(out), "\n")
	want := "kubernetes validation: k8s.io/apiextensions-apiserver " + goModVersion(t, "k8s.io/apiextensions-apiserver") + "\n"
	if !strings.HasPrefix(first, "crdguard ") || second != want {
		t.Errorf("crdguard --version = %q, want \"crdguard VERSION\\n%s\"", out, want)
	}
}

// -v is not --version: kubectl users type -v=N for verbosity, and kubectl
// hands it to the plugin as typed, where it was a ParseBool error.
func TestVersionHasNoShorthand(t *testing.T) {
	checkUsageErrors(t, []usageErrorCase{
		{"kubectl's verbosity", []string{"-v=6"}, "crdguard: unknown shorthand flag: 'v' in -v=6\nRun 'crdguard --help' for usage.\n"},
		{"-v alone", []string{"-v"}, "crdguard: unknown shorthand flag: 'v' in -v\nRun 'crdguard --help' for usage.\n"},
	})
	help := crdguard(t, "", "--help").stdout
	if !strings.Contains(help, "\n      --version   print the crdguard version, as crdguard version does\n") {
		t.Errorf("help does not list --version alone:\n%s", help)
	}
}
