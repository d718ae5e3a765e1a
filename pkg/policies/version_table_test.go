package policies

import "testing"

func TestVersionTable(t *testing.T) { runCases(t, "versionTable") }
