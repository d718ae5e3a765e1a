package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/crdguard/crdguard/internal/localca"
)

// TestClientVerifier serves TLS with --client-ca-file and
// --client-allowed-names and connects with each kind of client: only a
// certificate the CA signed for an allowed name is served, and a CA file
// replaced while serving applies to the next handshake.
func TestClientVerifier(t *testing.T) {
	trusted, other := newCA(t, "trusted-ca"), newCA(t, "other-ca")
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.crt")
	writeFile(t, caFile, trusted.PEM)
	o := NewOptions()
	o.ClientCAFile, o.ClientAllowedNames = caFile, []string{"kube-apiserver"}
	clients, err := o.newClientVerifier(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	server := servingCA(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{server.cert}}
	clients.tlsConfig(srv.TLS)
	srv.StartTLS()
	defer srv.Close()

	call := func(cert *tls.Certificate) error {
		cfg := &tls.Config{RootCAs: server.pool, MinVersion: tls.VersionTLS12}
		if cert != nil {
			cfg.Certificates = []tls.Certificate{*cert}
		}
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
		defer c.CloseIdleConnections()
		resp, err := c.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	apiServer := clientCert(t, trusted, "kube-apiserver")
	for _, tt := range []struct {
		name string
		cert *tls.Certificate
		want string // in the error; empty: served
	}{
		{"the allowed name", apiServer, ""},
		{"no certificate", nil, "certificate required"},
		{"another name", clientCert(t, trusted, "system:admin"), "bad certificate"},
		{"another CA", clientCert(t, other, "kube-apiserver"), "bad certificate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := call(tt.cert)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && err == nil:
				t.Errorf("served, want refused with %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("refused with %v, want %q", err, tt.want)
			}
		})
	}

	t.Run("a replaced CA file", func(t *testing.T) {
		writeFile(t, caFile, other.PEM)
		moved := clientCert(t, other, "kube-apiserver")
		if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			return call(moved) == nil, nil
		}); err != nil {
			t.Fatalf("the new CA's client was never served: %v", call(moved))
		}
		if err := call(apiServer); err == nil {
			t.Error("the replaced CA's client is still served")
		}
	})
}

// servingTLS is a serving certificate and the pool that trusts it.
type servingTLS struct {
	cert tls.Certificate
	pool *x509.CertPool
}

func servingCA(t *testing.T) servingTLS {
	t.Helper()
	ca := newCA(t, "serving-ca")
	dir := t.TempDir()
	if err := ca.WriteServing(dir, net.IPv4(127, 0, 0, 1), time.Hour); err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.PEM)
	return servingTLS{cert: cert, pool: pool}
}

func newCA(t *testing.T, name string) *localca.CA {
	t.Helper()
	ca, err := localca.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// clientCert is a client certificate ca signed for commonName.
func clientCert(t *testing.T, ca *localca.CA, commonName string) *tls.Certificate {
	t.Helper()
	dir := t.TempDir()
	if err := ca.WriteClient(dir, commonName, time.Hour); err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key"))
	if err != nil {
		t.Fatal(err)
	}
	return &cert
}

// writeFile replaces path whole, as the kubelet updates a mounted
// ConfigMap.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestClientVerifierUnreadableCA(t *testing.T) {
	o := NewOptions()
	o.ClientCAFile, o.ClientAllowedNames = filepath.Join(t.TempDir(), "missing.crt"), []string{"kube-apiserver"}
	_, err := o.newClientVerifier(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), "--client-ca-file: ") || !strings.Contains(err.Error(), "missing.crt") {
		t.Errorf("error %v, want one naming --client-ca-file and the file", err)
	}
}
