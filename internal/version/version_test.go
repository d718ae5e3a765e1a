package version

import "testing"

func TestGet(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "v1.2.3"
	if got := Get(); got != "v1.2.3" {
		t.Errorf("with -X: %q, want v1.2.3", got)
	}
	// A test binary has no module version.
	version = ""
	if got := Get(); got != "(devel)" {
		t.Errorf("without -X: %q, want (devel)", got)
	}
}
