package localca

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
)

// TestServingCertificate serves TLS with the files NewServing wrote and
// connects as the API server would: trusting only the CA, to 127.0.0.1.
// The directory does not exist yet: WriteServing makes it.
func TestServingCertificate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	ca, err := NewServing("test-ca", dir)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatalf("loading the pair as crdguard-webhook's certwatcher does: %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	defer srv.Close()

	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.PEM) {
		t.Fatal("the caBundle is not PEM")
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("a client trusting only the CA: %v", err)
	}
	resp.Body.Close()

	other, err := New("other-ca")
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AppendCertsFromPEM(other.PEM)
	c = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if resp, err := c.Get(srv.URL); err == nil {
		resp.Body.Close()
		t.Error("a client trusting another CA connected")
	}
}
