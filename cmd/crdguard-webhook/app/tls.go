package app

import (
	"crypto/tls"
)

// tlsConfig returns the webhook server's TLS settings. getCertificate is
// the certwatcher's or the self-signed manager's (--tls-mode), so a renewed
// certificate is served on the next handshake without a restart.
func (o *Options) tlsConfig(getCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)) func(*tls.Config) {
	return func(cfg *tls.Config) {
		cfg.GetCertificate = getCertificate
		cfg.MinVersion = o.tlsMinVersion
		cfg.CipherSuites = o.tlsCipherSuites
		// controller-runtime offers h2 by default; announce only HTTP/1.1
		// unless asked, so clients never negotiate HTTP/2 (see
		// Options.EnableHTTP2).
		if !o.EnableHTTP2 {
			cfg.NextProtos = []string{"http/1.1"}
		}
	}
}
