// Command crdguard validates custom resources and CRD changes offline, with
// the same verdicts as kube-apiserver and the crdguard admission webhook.
package main

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/crdguard/crdguard/cmd/crdguard/app"
)

// gcPercent trades memory for CPU: validating allocates heavily and keeps
// little alive, so collecting less often is much cheaper. GOGC, when set,
// wins.
const gcPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := app.SignalContext(context.Background())
	code := app.Run(ctx, os.Args[1:], app.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
