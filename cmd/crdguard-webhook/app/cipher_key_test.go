package app

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"net"
	"strings"
	"testing"
	"time"
)

// TestCipherSuitesFit: a cipher list needs a suite the serving key can
// use, as long as TLS 1.2 is served.
func TestCipherSuitesFit(t *testing.T) {
	const (
		rsaSuite   = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
		ecdsaSuite = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
	)
	tests := []struct {
		name   string
		key    crypto.PublicKey
		args   []string
		errMsg string
	}{
		{name: "no list", key: &ecdsa.PublicKey{}},
		{name: "RSA suites, RSA key", key: &rsa.PublicKey{}, args: []string{"--tls-cipher-suites", rsaSuite + ",TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"}},
		{name: "mixed suites, ECDSA key", key: &ecdsa.PublicKey{}, args: []string{"--tls-cipher-suites", rsaSuite + "," + ecdsaSuite}},
		{name: "ECDSA suites, Ed25519 key", key: ed25519.PublicKey{}, args: []string{"--tls-cipher-suites", ecdsaSuite}},
		{name: "RSA suites, ECDSA key, TLS 1.3 only", key: &ecdsa.PublicKey{}, args: []string{"--tls-cipher-suites", rsaSuite, "--tls-min-version", "VersionTLS13"}},
		{
			name: "RSA suites, ECDSA key", key: &ecdsa.PublicKey{}, args: []string{"--tls-cipher-suites", rsaSuite},
			errMsg: "--tls-cipher-suites TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: none can be used with the serving certificate's ECDSA key, so every TLS 1.2 handshake would fail; list a TLS_ECDHE_ECDSA_WITH_* suite, or leave the flag unset",
		},
		{
			name: "ECDSA suites, RSA key", key: &rsa.PublicKey{}, args: []string{"--tls-cipher-suites", ecdsaSuite},
			errMsg: "--tls-cipher-suites TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: none can be used with the serving certificate's RSA key, so every TLS 1.2 handshake would fail; list a TLS_ECDHE_RSA_WITH_* suite, or leave the flag unset",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parse(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			err = o.cipherSuitesFit(&tls.Certificate{Leaf: &x509.Certificate{PublicKey: tt.key}})
			if got := errString(err); got != tt.errMsg {
				t.Errorf("error %q, want %q", got, tt.errMsg)
			}
		})
	}
}

// TestCertificatesRefuseUnusableSuites: the start fails on an RSA-only
// cipher list with an ECDSA serving certificate.
func TestCertificatesRefuseUnusableSuites(t *testing.T) {
	dir := t.TempDir()
	if err := newCA(t, "serving-ca").WriteServing(dir, net.IPv4(127, 0, 0, 1), time.Hour); err != nil {
		t.Fatal(err)
	}
	s := stepServer(t, "--cert-dir", dir, "--tls-cipher-suites", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")
	err := s.certificates(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), "--tls-cipher-suites TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: none can be used with the serving certificate's ECDSA key") {
		t.Errorf("error %v, want the cipher list refused", err)
	}
	s = stepServer(t, "--cert-dir", dir, "--tls-cipher-suites", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384")
	if err := s.certificates(t.Context()); err != nil {
		t.Errorf("an ECDSA suite with the ECDSA certificate: %v", err)
	}
}
