// Command crdguard validates custom resources and CRD changes offline, with
// the same verdicts as kube-apiserver and the crdguard admission webhook.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/crdguard/crdguard/cmd/crdguard/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Run(ctx, os.Args[1:], app.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
