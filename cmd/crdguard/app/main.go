package app

import (
	"context"
	"os"
)

// Main runs crdguard as this process, with os.Args and the standard streams,
// and returns its exit code. name is the command as users type it, which
// help and usage show: "crdguard", or "kubectl crdguard" for the kubectl
// plugin.
func Main(name string) int {
	paceCollector(loadGCPercent)
	silenceKlog()
	ctx, stop := SignalContext(context.Background())
	defer stop()
	return runAs(ctx, name, os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, CI: ciEnvironment(os.Getenv("CI"))})
}
