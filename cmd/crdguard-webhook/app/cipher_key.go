package app

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"slices"
	"strings"
)

// cipherSuitesFit tells whether the TLS 1.2 cipher suites of
// --tls-cipher-suites can serve cert. A TLS 1.2 suite names the key it
// authenticates with: an ECDHE_ECDSA suite needs an ECDSA (or Ed25519)
// key, an ECDHE_RSA suite an RSA key. Given only suites the key
// cannot use, crypto/tls accepts the list and every TLS 1.2 handshake
// then fails; TLS 1.3 handshakes do not use the list. nil when every
// handshake can succeed.
func (o *Options) cipherSuitesFit(cert *tls.Certificate) error {
	if len(o.tlsCipherSuites) == 0 || o.tlsMinVersion > tls.VersionTLS12 {
		return nil
	}
	key, err := publicKey(cert)
	if err != nil {
		return fmt.Errorf("reading the serving certificate: %w", err)
	}
	var kind, want string
	switch key.(type) {
	case *rsa.PublicKey:
		kind, want = "RSA", "_RSA_"
	case *ecdsa.PublicKey, ed25519.PublicKey:
		kind, want = "ECDSA", "_ECDSA_"
	default:
		return fmt.Errorf("the serving certificate's key is a %T, which no TLS 1.2 cipher suite can use", key)
	}
	if slices.ContainsFunc(o.TLSCipherSuites, func(name string) bool { return strings.Contains(name, want) }) {
		return nil
	}
	return fmt.Errorf("--tls-cipher-suites %s: none can be used with the serving certificate's %s key, so every TLS 1.2 handshake would fail; list a TLS_ECDHE%sWITH_* suite, or leave the flag unset",
		strings.Join(o.TLSCipherSuites, ","), kind, want)
}

// publicKey is the public key of cert's leaf.
func publicKey(cert *tls.Certificate) (crypto.PublicKey, error) {
	if cert.Leaf != nil {
		return cert.Leaf.PublicKey, nil
	}
	if len(cert.Certificate) == 0 {
		return nil, fmt.Errorf("no certificate")
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return nil, err
	}
	return leaf.PublicKey, nil
}
