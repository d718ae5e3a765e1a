package app

import (
	"bytes"
	"strings"
	"testing"
)

// The kubectl plugin's help names the command as kubectl runs it, in the
// usage line, the examples and the hint after a usage error.
func TestDisplayName(t *testing.T) {
	const name = "kubectl crdguard"
	var out, errOut bytes.Buffer
	if code := runAs(t.Context(), name, []string{"validate", "--help"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != ExitOK {
		t.Fatalf("validate --help: exit %d, stderr %q", code, errOut.String())
	}
	help := out.String()
	for _, want := range []string{"\n  kubectl crdguard validate [flags] [PATH...]\n", "\n  kubectl crdguard validate --crds config/crd/bases config/samples\n"} {
		if !strings.Contains(help, want) {
			t.Errorf("validate --help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "\n  crdguard ") {
		t.Errorf("validate --help shows a command without kubectl:\n%s", help)
	}

	out.Reset()
	errOut.Reset()
	code := runAs(t.Context(), name, []string{"validate", "--no-such-flag"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	want := "crdguard: unknown flag: --no-such-flag\nRun 'kubectl crdguard validate --help' for usage.\n"
	if code != ExitUsage || errOut.String() != want {
		t.Errorf("unknown flag: exit %d, stderr %q; want %d, %q", code, errOut.String(), ExitUsage, want)
	}
}

// No example in any command's help runs the crdguard binary under the
// plugin's name, after a pipe either (kubectl get ... | crdguard validate).
func TestDisplayNameInEveryExample(t *testing.T) {
	const name = "kubectl crdguard"
	root := newRootCommand(name, Streams{})
	for _, cmd := range append(root.Commands(), root) {
		for line := range strings.Lines(cmd.Example) {
			words := strings.Fields(line)
			for i, w := range words {
				if w == "crdguard" && (i == 0 || words[i-1] == "|") { // a command, not a release name
					t.Errorf("%s example runs crdguard, not %s: %q", cmd.Name(), name, line)
				}
			}
		}
	}
}
