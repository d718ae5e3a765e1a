package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
)

// TestServingCertificateRenewal: a certificate renewed on disk (as
// cert-manager renews the Secret) is served without a restart, and the
// API server keeps calling the webhook. It also checks the TLS floor and
// that HTTP/2 is not offered.
func TestServingCertificateRenewal(t *testing.T) {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cluster.ca.PEM)
	if conn, err := tls.Dial("tcp", cluster.webhookAddr, &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS11}); err == nil {
		conn.Close()
		t.Error("a TLS 1.1 handshake succeeded; the floor is TLS 1.2")
	}

	before := servedCertificate(t, tls.VersionTLS12)
	if err := cluster.ca.WriteServing(cluster.certDir, localhost, 48*time.Hour); err != nil {
		t.Fatal(err)
	}
	// fsnotify sees the rename at once; the certwatcher's 10s poll is the
	// fallback.
	var after *x509.Certificate
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		after = servedCertificate(t, tls.VersionTLS13)
		return after.SerialNumber.Cmp(before.SerialNumber) != 0, nil
	})
	if err != nil {
		t.Fatalf("the renewed certificate was not served: %v", err)
	}
	if d := time.Until(after.NotAfter); d < 47*time.Hour {
		t.Errorf("the served certificate expires in %s, want the renewed one's 48h", d)
	}
	if got := sample(scrape(t), "crdguard_serving_certificate_expiry_timestamp_seconds"); int64(got) != after.NotAfter.Unix() {
		t.Errorf("expiry metric = %v, want %d", got, after.NotAfter.Unix())
	}
	// The API server verifies the renewed certificate against the same
	// caBundle and keeps calling the webhook.
	if err := cluster.client.Create(t.Context(), example(t, "unsafe.yaml", namespace(t))); !apierrors.IsInvalid(err) {
		t.Errorf("after the renewal, creating unsafe.yaml: %v, want the webhook's denial", err)
	}
}

// servedCertificate handshakes with the webhook server at exactly version
// and returns the certificate it presents.
func servedCertificate(t *testing.T, version uint16) *x509.Certificate {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cluster.ca.PEM)
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", cluster.webhookAddr, &tls.Config{
		RootCAs: pool, MinVersion: version, MaxVersion: version, NextProtos: []string{"h2", "http/1.1"},
	})
	if err != nil {
		t.Fatalf("TLS handshake: %v", err)
	}
	defer conn.Close()
	state := conn.ConnectionState()
	if state.NegotiatedProtocol == "h2" {
		t.Error("the webhook negotiated HTTP/2; it is off unless --enable-http2")
	}
	return state.PeerCertificates[0]
}
