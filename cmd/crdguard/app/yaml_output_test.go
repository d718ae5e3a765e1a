package app

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestOutputWriteFailure: output that cannot be written (a closed pipe) is
// crdguard's error, exit 3, in every form vap and webhook-config print;
// never a usage error.
func TestOutputWriteFailure(t *testing.T) {
	for _, args := range [][]string{
		{"vap", "--policies", examplePolicy, "--crds", exampleCRD},
		{"vap", "--policies", examplePolicy, "--crds", exampleCRD, "-o", "json"},
		{"vap", "--policies", examplePolicy, "--crds", exampleCRD, "--check"},
		{"webhook-config", "--policies", examplePolicy, "--crds", exampleCRD},
	} {
		var stderr bytes.Buffer
		code := Run(t.Context(), args, Streams{In: strings.NewReader(""), Out: closedWriter{}, Err: &stderr})
		if code != ExitInternal || !strings.HasSuffix(stderr.String(), "crdguard: writing the output: closed pipe\n") {
			t.Errorf("%s: exit %d, stderr %q; want exit 3 saying the output could not be written", strings.Join(args, " "), code, stderr.String())
		}
	}
}

type closedWriter struct{}

func (closedWriter) Write([]byte) (int, error) { return 0, errors.New("closed pipe") }
