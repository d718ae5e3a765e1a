package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"

	"github.com/crdguard/crdguard/internal/webhook"
)

// validateClientAuth checks --client-ca-file and --client-allowed-names,
// which only make sense together. The file is read at start, where it is
// mounted.
func (o *Options) validateClientAuth() field.ErrorList {
	var errs field.ErrorList
	switch {
	case o.ClientCAFile == "" && len(o.ClientAllowedNames) > 0:
		errs = append(errs, field.Required(field.NewPath("client-ca-file"), "--client-allowed-names needs the CA that signs those certificates"))
	case o.ClientCAFile != "" && len(o.ClientAllowedNames) == 0:
		errs = append(errs, field.Required(field.NewPath("client-allowed-names"), "the names of the client certificates to accept: a CA such as the cluster's also signs every user's certificate"))
	}
	for i, name := range o.ClientAllowedNames {
		if name == "" {
			errs = append(errs, field.Required(field.NewPath("client-allowed-names").Index(i), "an empty name matches no certificate"))
		}
	}
	return errs
}

// clientVerifier admits the TLS clients whose certificate a CA of
// --client-ca-file signed for one of --client-allowed-names.
type clientVerifier struct {
	cas   *dynamiccertificates.DynamicFileCAContent
	names []string
}

// newClientVerifier reads --client-ca-file and rereads it, until ctx is
// done, whenever it changes (a mounted ConfigMap is replaced whole). It
// returns nil without --client-ca-file.
func (o *Options) newClientVerifier(ctx context.Context) (*clientVerifier, error) {
	if o.ClientCAFile == "" {
		return nil, nil
	}
	cas, err := dynamiccertificates.NewDynamicCAContentFromFile("client-ca", o.ClientCAFile)
	if err != nil {
		return nil, fmt.Errorf("--client-ca-file: %w", err)
	}
	go cas.Run(ctx, 1)
	return &clientVerifier{cas: cas, names: o.ClientAllowedNames}, nil
}

// tlsConfig makes the server ask every client for a certificate and
// verify it. The chain is verified in VerifyConnection rather than by
// crypto/tls from ClientCAs, so a reread CA bundle applies to the next
// handshake.
func (v *clientVerifier) tlsConfig(cfg *tls.Config) {
	cfg.ClientAuth = tls.RequireAnyClientCert
	cfg.VerifyConnection = v.verify
}

// verify is the handshake's verdict on the client's certificate chain.
func (v *clientVerifier) verify(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("no client certificate")
	}
	opts, ok := v.cas.VerifyOptions()
	if !ok {
		return errors.New("no client CA loaded")
	}
	leaf := cs.PeerCertificates[0]
	opts.Intermediates = x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	// The caller writes the names, and net/http logs the error: both are
	// bounded.
	name := boundedName(leaf.Subject.CommonName)
	if _, err := leaf.Verify(opts); err != nil {
		return webhook.BoundError(fmt.Errorf("client certificate %q: %w", name, err))
	}
	if !slices.Contains(v.names, leaf.Subject.CommonName) && !slices.ContainsFunc(leaf.DNSNames, func(n string) bool { return slices.Contains(v.names, n) }) {
		return fmt.Errorf("client certificate %q: not one of --client-allowed-names", name)
	}
	return nil
}

// maxLoggedName is the longest common name X.509 allows (RFC 5280
// ub-common-name); a refused certificate's error says no more of it.
const maxLoggedName = 64

// boundedName is name, cut to maxLoggedName bytes with its length said.
func boundedName(name string) string {
	if len(name) <= maxLoggedName {
		return name
	}
	return fmt.Sprintf("%s…(%d bytes)", strings.ToValidUTF8(name[:maxLoggedName], ""), len(name))
}
