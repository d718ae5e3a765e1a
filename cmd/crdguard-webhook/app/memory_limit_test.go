package app

import (
	"strings"
	"testing"
)

// TestMemoryLimit: --memory-limit sets the Go soft limit to 90% of the
// container's; a value that is no quantity, or given with GOMEMLIMIT, is
// refused at the flag.
func TestMemoryLimit(t *testing.T) {
	o, err := parse(t, "--memory-limit", "536870912")
	if err != nil {
		t.Fatal(err)
	}
	if got := o.GoMemoryLimit(); got != 483183820 {
		t.Errorf("Go memory limit %d for 512Mi, want 483183820 (90%%)", got)
	}
	if o, err := parse(t); err != nil || o.GoMemoryLimit() != 0 {
		t.Errorf("without the flag: %v, limit %d; want none", err, o.GoMemoryLimit())
	}
	if _, err := parse(t, "--memory-limit", "lots"); err == nil || !strings.Contains(err.Error(), `memory-limit: Invalid value: "lots"`) {
		t.Errorf("--memory-limit=lots: %v", err)
	}
	t.Setenv("GOMEMLIMIT", "400MiB")
	if _, err := parse(t, "--memory-limit", "512Mi"); err == nil || !strings.Contains(err.Error(), "GOMEMLIMIT=400MiB sets the Go memory limit too: set one of them") {
		t.Errorf("--memory-limit with GOMEMLIMIT: %v", err)
	}
}
