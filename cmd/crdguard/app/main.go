package app

import (
	"context"
	"os"
	"runtime/debug"
)

// gcPercent trades memory for CPU: validating allocates heavily and keeps
// little alive, so collecting less often is much cheaper. GOGC, when set,
// wins.
const gcPercent = 400

// Main runs crdguard as this process, with os.Args and the standard streams,
// and returns its exit code. name is the command as users type it, which
// help and usage show: "crdguard", or "kubectl crdguard" for the kubectl
// plugin.
func Main(name string) int {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := SignalContext(context.Background())
	defer stop()
	return runAs(ctx, name, os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
}
