package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// ownPath is where this program's servers answer, crdguard's validating
// path.
const ownPath = "/validate"

// denyProbeName is the one object name the no-op webhook denies: a
// dry-run create of it tells when the API server has started calling the
// webhook. Comparing a name costs nothing next to decoding the review.
const denyProbeName = "deny-probe"

// probeReview is the smallest AdmissionReview a server must answer with 200.
const probeReview = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"probe","kind":{"group":"db.example.io","version":"v1","kind":"MySQLCluster"},"resource":{"group":"db.example.io","version":"v1","resource":"mysqlclusters"},"operation":"CREATE","name":"probe","namespace":"bench","userInfo":{"username":"bench"},"object":{"apiVersion":"db.example.io/v1","kind":"MySQLCluster","metadata":{"name":"probe","namespace":"bench"}}}}`

// serve runs one of the reference servers until SIGTERM, with the TLS
// settings crdguard-webhook serves with (TLS 1.2 at least, HTTP/2 offered
// as with --enable-http2):
//   - serverNoop: controller-runtime's webhook server and admission.Webhook
//     with a handler that allows everything (but denyProbeName), the
//     framework's floor;
//   - serverEcho: net/http's TLS server writing the body back, the floor
//     of Go's HTTP stack.
func serve(name string, port int, certDir string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	minTLS12 := func(cfg *tls.Config) { cfg.MinVersion = tls.VersionTLS12 }
	switch name {
	case serverNoop:
		server := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: certDir, TLSOpts: []func(*tls.Config){minTLS12}})
		server.Register(ownPath, &admission.Webhook{Handler: admission.HandlerFunc(func(_ context.Context, req admission.Request) admission.Response {
			if req.Name == denyProbeName {
				return admission.Denied("deny-probe is denied")
			}
			return admission.Allowed("")
		})})
		return server.Start(ctx)
	case serverEcho:
		cert, err := tls.LoadX509KeyPair(filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key"))
		if err != nil {
			return err
		}
		tlsConfig := &tls.Config{Certificates: []tls.Certificate{cert}}
		minTLS12(tlsConfig)
		srv := &http.Server{
			Addr:      "127.0.0.1:" + strconv.Itoa(port),
			TLSConfig: tlsConfig,
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				// HTTP/1.x: the whole body is read before the first write.
				data, err := io.ReadAll(r.Body)
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(data) // a client gone away: nobody to tell
			}),
		}
		go func() {
			<-ctx.Done()
			_ = srv.Shutdown(context.Background()) // ListenAndServeTLS returns how serving ended
		}()
		if err := srv.ListenAndServeTLS("", ""); err != http.ErrServerClosed {
			return err
		}
		return nil
	}
	return fmt.Errorf("no server %q", name)
}
