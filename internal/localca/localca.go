package localca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CA signs serving and client certificates.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the CA certificate, for a caBundle.
	PEM []byte
}

// New makes a CA valid for a week.
func New(name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: name},
		// An hour back: tolerate a clock a little behind the API server's.
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// NewServing makes a CA and writes a serving certificate for 127.0.0.1,
// signed by it and valid for a day, into dir: what a webhook started on
// this machine serves with, for a test suite, a benchmark or the demo.
func NewServing(name, dir string) (*CA, error) {
	ca, err := New(name)
	if err != nil {
		return nil, err
	}
	if err := ca.WriteServing(dir, net.IPv4(127, 0, 0, 1), 24*time.Hour); err != nil {
		return nil, err
	}
	return ca, nil
}

// WriteServing writes tls.crt and tls.key (the names crdguard-webhook's
// --cert-name and --key-name default to) for ip into dir, valid for
// validity.
func (ca *CA) WriteServing(dir string, ip net.IP, validity time.Duration) error {
	return ca.write(dir, "tls", &x509.Certificate{
		Subject: pkix.Name{CommonName: "crdguard-webhook"},
		// The API server checks the URL's host against the SANs only.
		IPAddresses: []net.IP{ip},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, validity)
}

// WriteClient writes client.crt and client.key, a client certificate for
// commonName, into dir, valid for validity.
func (ca *CA) WriteClient(dir, commonName string, validity time.Duration) error {
	return ca.write(dir, "client", &x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, validity)
}

// write signs template with a new key and writes name.crt and name.key
// into dir, made if missing. Each file is written whole and renamed into place, as the
// kubelet updates a mounted Secret, so a certificate watcher never reads
// half a file.
func (ca *CA) write(dir, name string, template *x509.Certificate, validity time.Duration) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	if template.SerialNumber, err = rand.Int(rand.Reader, big.NewInt(1<<62)); err != nil {
		return err
	}
	now := time.Now()
	template.NotBefore, template.NotAfter = now.Add(-time.Hour), now.Add(validity)
	template.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, template, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for file, block := range map[string]*pem.Block{
		name + ".key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
		name + ".crt": {Type: "CERTIFICATE", Bytes: der},
	} {
		tmp := filepath.Join(dir, "."+file+".tmp")
		if err := os.WriteFile(tmp, pem.EncodeToMemory(block), 0o600); err != nil {
			return err
		}
		if err := os.Rename(tmp, filepath.Join(dir, file)); err != nil {
			return err
		}
	}
	return nil
}
