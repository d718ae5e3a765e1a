package policies

import (
	"testing"
)

func TestResources(t *testing.T) { runCases(t, "resources") }
