// Package localwebhook runs crdguard-webhook in this process, through the
// same app.Run as the binary, on free local ports: how the webhook e2e,
// self-signed TLS and reliability tests serve it to a local kube-apiserver.
// It lives under test/ because it runs the binary's own app package, and
// internal/ never imports cmd/.
package localwebhook

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/crdguard/crdguard/cmd/crdguard-webhook/app"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/localsuite"
)

// Webhook is a running crdguard-webhook.
type Webhook struct {
	// Addr is the host:port it serves TLS on.
	Addr string
	// Metrics is the URL of its /metrics.
	Metrics string
	stop    context.CancelFunc
	served  chan error
}

// Start runs the webhook with the options configure sets, over defaults
// for a test: the server, health probes and metrics on free 127.0.0.1
// ports (configure sees them, to register the server's URL) and a 10s
// shutdown timeout. It returns once /readyz answers, or with why not; on
// an error nothing is left running.
func Start(ctx context.Context, configure func(*app.Options) error) (*Webhook, error) {
	ports, err := localcluster.FreePorts(3)
	if err != nil {
		return nil, err
	}
	o := app.NewOptions()
	o.Host, o.Port = "127.0.0.1", ports[0]
	o.HealthProbeBindAddress = "127.0.0.1:" + strconv.Itoa(ports[1])
	o.MetricsBindAddress = "127.0.0.1:" + strconv.Itoa(ports[2])
	o.ShutdownTimeout = 10 * time.Second
	if err := configure(o); err != nil {
		return nil, err
	}
	o.Complete()
	if errs := o.Validate(); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	runCtx, stop := context.WithCancel(context.Background())
	w := &Webhook{
		Addr:    net.JoinHostPort(o.Host, strconv.Itoa(o.Port)),
		Metrics: "http://" + o.MetricsBindAddress + "/metrics",
		stop:    stop,
		served:  make(chan error, 1),
	}
	go func() { w.served <- app.Run(runCtx, o) }()
	if err := localcluster.WaitReady(ctx, o.HealthProbeBindAddress, w.served); err != nil {
		_ = w.Stop() // err already tells how Run ended, if it did
		return nil, err
	}
	return w, nil
}

// StartSuite starts the webhook as Start does, for a suite's setup, and
// stops it when the suite's run ends.
func StartSuite(s *localsuite.Setup, configure func(*app.Options) error) (*Webhook, error) {
	w, err := Start(s.Ctx, configure)
	if err != nil {
		return nil, err
	}
	s.Defer(func() error {
		if err := w.Stop(); err != nil {
			return fmt.Errorf("the webhook stopped with an error: %w", err)
		}
		return nil
	})
	return w, nil
}

// Stop shuts the webhook down gracefully and returns Run's error.
func (w *Webhook) Stop() error {
	w.stop()
	return <-w.served
}
