package app

import (
	"context"
	"strings"
	"testing"
)

// --version prints the version alone and exits before anything else: no
// flag validation, no server.
func TestVersionFlag(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "v1.2.3"
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
	if out.String() != "v1.2.3\n" || errOut.String() != "" {
		t.Errorf("--version printed %q to stdout and %q to stderr, want %q and nothing", out.String(), errOut.String(), "v1.2.3\n")
	}
	if ran {
		t.Error("--version started the server")
	}
}

// Without -ldflags, the version comes from the build info; a test binary
// has no module version, so it is "(devel)".
func TestVersionFallback(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = ""
	if got := Version(); got != "(devel)" {
		t.Errorf("Version() = %q, want (devel)", got)
	}
}
