package cluster

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// TestMain gives controller-runtime a logger. Without one it writes a
// warning to stderr after 30 s, into the middle of a benchmark's line,
// which benchstat then drops.
func TestMain(m *testing.M) {
	logf.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
