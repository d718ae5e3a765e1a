package main

import (
	"os/exec"
	"testing"
)

// A run that exits non-zero is measured, not failed: each caller checks
// the exit code its run must have.
func TestMeasureKeepsExitCodeAndOutput(t *testing.T) {
	r, stdout, stderr, err := measure("sh", exec.Command("sh", "-c", "echo out; echo err >&2; exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	if r.exitCode != 3 || stdout.String() != "out\n" || stderr.String() != "err\n" || r.wall <= 0 {
		t.Errorf("run %+v, stdout %q, stderr %q; want exit 3, out, err", r, stdout, stderr)
	}
	if _, _, _, err := measure("missing", exec.Command("/nonexistent/tool")); err == nil {
		t.Error("a command that cannot start measured without an error")
	}
}
