package selfsigned

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// keyPair is a certificate and its private key, parsed and as PEM.
type keyPair struct {
	cert    *x509.Certificate
	key     crypto.Signer
	certPEM []byte
	keyPEM  []byte
}

// maxBackdate bounds how far NotBefore lies before issuance, so that a
// replica or API server whose clock is a little behind accepts a
// certificate issued moments ago.
const maxBackdate = time.Hour

// backdate is how far before now a certificate of lifetime starts: an hour,
// or a tenth of a short lifetime so renewal stays well after issuance.
func backdate(lifetime time.Duration) time.Duration {
	return min(maxBackdate, lifetime/10)
}

// newCA generates a self-signed CA valid for lifetime from now. Its common
// name carries the issuance time, as the API server's own self-signed
// certificates do, so two CAs in a bundle can be told apart.
func newCA(name string, now time.Time, lifetime time.Duration) (*keyPair, error) {
	template := &x509.Certificate{
		Subject:               pkix.Name{CommonName: fmt.Sprintf("%s@%d", name, now.Unix())},
		NotBefore:             now.Add(-backdate(lifetime)),
		NotAfter:              now.Add(lifetime),
		IsCA:                  true,
		BasicConstraintsValid: true,
		// It signs leaf certificates only.
		MaxPathLenZero: true,
		KeyUsage:       x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	return issue(template, nil)
}

// newServing issues a serving certificate for dnsNames, signed by ca, valid
// for lifetime from now but never beyond the CA: a certificate that
// outlived its CA would not verify anyway.
func newServing(ca *keyPair, dnsNames []string, now time.Time, lifetime time.Duration) (*keyPair, error) {
	if len(dnsNames) == 0 {
		return nil, errors.New("a serving certificate needs at least one DNS name")
	}
	notAfter := now.Add(lifetime)
	if ca.cert.NotAfter.Before(notAfter) {
		notAfter = ca.cert.NotAfter
	}
	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: dnsNames[0]},
		DNSNames:    slices.Clone(dnsNames),
		NotBefore:   now.Add(-backdate(lifetime)),
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	return issue(template, ca)
}

// issue generates an ECDSA P-256 key and a certificate for it from
// template, signed by parent (self-signed when parent is nil).
func issue(template *x509.Certificate, parent *keyPair) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	// 128 random bits: unique without any state to keep.
	if template.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128)); err != nil {
		return nil, err
	}
	signer, signerCert := crypto.Signer(key), template
	if parent != nil {
		signer, signerCert = parent.key, parent.cert
	}
	der, err := x509.CreateCertificate(rand.Reader, template, signerCert, key.Public(), signer)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	certPEM, err := certutil.EncodeCertificates(cert)
	if err != nil {
		return nil, err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, err
	}
	return &keyPair{cert: cert, key: key, certPEM: certPEM, keyPEM: keyPEM}, nil
}

// parseKeyPair reads one certificate and the private key that belongs to it.
func parseKeyPair(certPEM, keyPEM []byte) (*keyPair, error) {
	cert, err := parseCertificate(certPEM)
	if err != nil {
		return nil, err
	}
	parsed, err := keyutil.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("private key: %w", err)
	}
	key, ok := parsed.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("private key: %T cannot sign", parsed)
	}
	if pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(cert.PublicKey) {
		return nil, errors.New("the private key does not belong to the certificate")
	}
	return &keyPair{cert: cert, key: key, certPEM: certPEM, keyPEM: keyPEM}, nil
}

// parseCertificate reads exactly one PEM certificate.
func parseCertificate(certPEM []byte) (*x509.Certificate, error) {
	certs, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return nil, fmt.Errorf("certificate: %w", err)
	}
	if len(certs) != 1 {
		return nil, fmt.Errorf("certificate: %d certificates, want 1", len(certs))
	}
	return certs[0], nil
}

// renewalTime is two thirds into cert's validity: early enough that a
// replica that cannot renew for a while still serves a valid certificate,
// and, for a CA, that both overlaps fit before it expires.
func renewalTime(cert *x509.Certificate) time.Time {
	return cert.NotBefore.Add(cert.NotAfter.Sub(cert.NotBefore) * 2 / 3)
}

// pemOf is cert as PEM.
func pemOf(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: cert.Raw})
}

// covers reports whether cert names every one of dnsNames.
func covers(cert *x509.Certificate, dnsNames []string) bool {
	for _, name := range dnsNames {
		if !slices.Contains(cert.DNSNames, name) {
			return false
		}
	}
	return true
}
