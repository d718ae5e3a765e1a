// Command crdguard-webhook serves crdguard's validating and mutating
// admission webhooks. See cmd/crdguard-webhook/app for its flags.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/crdguard/crdguard/cmd/crdguard-webhook/app"
)

func main() {
	// The first SIGTERM (the kubelet stopping the pod) or Ctrl-C starts a
	// graceful shutdown; stop() then restores the default handlers, so a
	// second signal kills the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	if err := app.NewCommand(app.Run).ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "crdguard-webhook:", err)
		os.Exit(1)
	}
}
