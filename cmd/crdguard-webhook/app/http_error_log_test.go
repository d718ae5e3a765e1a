package app

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
)

// TestRefusedCertificateBounded: a certificate whose common name is 60 KB
// is refused with an error of at most a few hundred bytes, whether
// another CA signed it or the name is not allowed.
func TestRefusedCertificateBounded(t *testing.T) {
	trusted, other := newCA(t, "trusted-ca"), newCA(t, "other-ca")
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	writeFile(t, caFile, trusted.PEM)
	o := NewOptions()
	o.ClientCAFile, o.ClientAllowedNames = caFile, []string{"kube-apiserver"}
	clients, err := o.newClientVerifier(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("n", 60<<10)
	for _, ca := range []struct {
		name string
		sign func() *tls.Certificate
	}{
		{"another CA", func() *tls.Certificate { return clientCert(t, other, name) }},
		{"a name not allowed", func() *tls.Certificate { return clientCert(t, trusted, name) }},
	} {
		cert := ca.sign()
		leaf, err := x509.ParseCertificate(cert.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		err = clients.verify(tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}})
		if err == nil || len(err.Error()) > 512 || !strings.Contains(err.Error(), fmt.Sprintf("%s…(%d bytes)\"", name[:64], len(name))) {
			t.Errorf("%s: %d bytes of error %.200q…, want at most 512 bytes naming the length", ca.name, len(fmt.Sprint(err)), fmt.Sprint(err))
		}
	}
}

// TestHTTPErrorLog: net/http's lines are logged bounded, ten at once and
// then one a second, each after the count of those dropped.
func TestHTTPErrorLog(t *testing.T) {
	var lines []string
	l := newHTTPErrorLog(funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{}))
	line := []byte("http: TLS handshake error from 192.0.2.1:4321: client certificate \"" + strings.Repeat("n", 60<<10) + "\": not one of --client-allowed-names\n")
	for range 1000 {
		if n, err := l.Write(line); n != len(line) || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	if len(lines) < httpErrorBurst || len(lines) > httpErrorBurst+1 {
		t.Fatalf("%d lines logged of 1000, want %d", len(lines), httpErrorBurst)
	}
	time.Sleep(1100 * time.Millisecond)
	if _, err := l.Write(line); err != nil {
		t.Fatal(err)
	}
	last := lines[len(lines)-1]
	if want := fmt.Sprintf(`"droppedBefore"=%d`, 1000-(len(lines)-1)); !strings.Contains(last, want) {
		t.Errorf("the line after the drops %.300q, want %s", last, want)
	}
	for _, l := range lines {
		if len(l) > 1024 {
			t.Errorf("a line of %d bytes: %.200q…", len(l), l)
		}
	}
}
