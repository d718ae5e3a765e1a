package app

import (
	"context"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/version"
)

// --version prints the version alone and exits before anything else: no
// flag validation, no server.
func TestVersionFlag(t *testing.T) {
	ran := false
	cmd := NewCommand(func(context.Context, *Options) error {
		ran = true
		return nil
	})
	var out, errOut strings.Builder
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	// --port 0 is invalid: --version must not get as far as validating it.
	cmd.SetArgs([]string{"--version", "--port", "0"})
	if err := cmd.ExecuteContext(t.Context()); err != nil {
		t.Fatalf("--version: %v", err)
	}
	if want := version.Get() + "\n"; out.String() != want || errOut.String() != "" {
		t.Errorf("--version printed %q to stdout and %q to stderr, want %q and nothing", out.String(), errOut.String(), want)
	}
	if ran {
		t.Error("--version started the server")
	}
}
