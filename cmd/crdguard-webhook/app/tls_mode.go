package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/crdguard/crdguard/internal/selfsigned"
)

// The values of --tls-mode.
const (
	// TLSModeFiles serves the certificate in --cert-dir, e.g. cert-manager's
	// mounted Secret, and reloads it when it changes.
	TLSModeFiles = "files"
	// TLSModeSelfSigned has the webhook issue, rotate and serve its own
	// certificate from a Secret and inject its CA into its configurations.
	TLSModeSelfSigned = "self-signed"
)

var tlsModes = []string{TLSModeFiles, TLSModeSelfSigned}

// servingCertificates is what serves the webhook's certificate in either
// mode: the certwatcher or the self-signed manager.
type servingCertificates interface {
	manager.Runnable
	GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error)
	RegisterCallback(func(tls.Certificate))
}

// servingCertificates reads or issues the serving certificate now, so a
// missing certificate (or a Secret that can be neither read nor created)
// fails the start instead of the first handshake. The result is added to
// the manager, which keeps it current.
func (o *Options) servingCertificates(ctx context.Context, cfg *rest.Config, log logr.Logger) (servingCertificates, error) {
	if o.TLSMode != TLSModeSelfSigned {
		// An explicit certwatcher rather than the server's own: it reads
		// the files now, and reloads them when cert-manager renews the
		// Secret.
		certs, err := certwatcher.New(filepath.Join(o.CertDir, o.CertName), filepath.Join(o.CertDir, o.KeyName))
		if err != nil {
			return nil, fmt.Errorf("loading the serving certificate: %w", err)
		}
		return certs, nil
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	namespace, name, _ := strings.Cut(o.SelfSignedSecret, "/")
	certs, err := selfsigned.New(ctx, client, selfsigned.Config{
		Namespace:                       namespace,
		Name:                            name,
		DNSNames:                        o.SelfSignedDNSNames,
		ValidatingWebhookConfigurations: o.SelfSignedValidatingConfigurations,
		MutatingWebhookConfigurations:   o.SelfSignedMutatingConfigurations,
		CADuration:                      o.SelfSignedCADuration,
		Duration:                        o.SelfSignedDuration,
		Overlap:                         o.SelfSignedCAOverlap,
	}, log.WithName("self-signed"))
	if err != nil {
		return nil, fmt.Errorf("issuing the self-signed serving certificate: %w", err)
	}
	return certs, nil
}

// validateTLSMode checks --tls-mode and the self-signed flags. Naming a
// Secret, DNS names or configurations without --tls-mode=self-signed is an
// error rather than ignored: whoever set them meant the webhook to issue
// its certificate.
func (o *Options) validateTLSMode() field.ErrorList {
	var errs field.ErrorList
	switch o.TLSMode {
	case TLSModeFiles:
		if o.SelfSignedSecret != "" || len(o.SelfSignedDNSNames) > 0 || len(o.SelfSignedValidatingConfigurations) > 0 || len(o.SelfSignedMutatingConfigurations) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("tls-mode"), o.TLSMode, "--self-signed-* flags need --tls-mode="+TLSModeSelfSigned))
		}
		return errs
	case TLSModeSelfSigned:
	default:
		return append(errs, field.NotSupported(field.NewPath("tls-mode"), o.TLSMode, tlsModes))
	}
	if o.SelfSignedSecret == "" {
		errs = append(errs, field.Required(field.NewPath("self-signed-secret"), "--tls-mode="+TLSModeSelfSigned+" needs the Secret as namespace/name"))
	} else if namespace, name, ok := strings.Cut(o.SelfSignedSecret, "/"); !ok {
		errs = append(errs, field.Invalid(field.NewPath("self-signed-secret"), o.SelfSignedSecret, "must be namespace/name"))
	} else {
		for _, msg := range validation.IsDNS1123Label(namespace) {
			errs = append(errs, field.Invalid(field.NewPath("self-signed-secret"), o.SelfSignedSecret, "namespace: "+msg))
		}
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			errs = append(errs, field.Invalid(field.NewPath("self-signed-secret"), o.SelfSignedSecret, "name: "+msg))
		}
	}
	if len(o.SelfSignedDNSNames) == 0 {
		errs = append(errs, field.Required(field.NewPath("self-signed-dns-names"), "the serving certificate needs the Service's DNS names"))
	}
	for flag, names := range map[string][]string{
		"self-signed-dns-names":                 o.SelfSignedDNSNames,
		"self-signed-validating-configurations": o.SelfSignedValidatingConfigurations,
		"self-signed-mutating-configurations":   o.SelfSignedMutatingConfigurations,
	} {
		for i, name := range names {
			for _, msg := range validation.IsDNS1123Subdomain(name) {
				errs = append(errs, field.Invalid(field.NewPath(flag).Index(i), name, msg))
			}
		}
	}
	errs = append(errs, positive("self-signed-ca-duration", o.SelfSignedCADuration)...)
	errs = append(errs, positive("self-signed-duration", o.SelfSignedDuration)...)
	errs = append(errs, positive("self-signed-ca-overlap", o.SelfSignedCAOverlap)...)
	if limit := selfsigned.MaxOverlap(o.SelfSignedCADuration); o.SelfSignedCADuration > 0 && o.SelfSignedCAOverlap > limit {
		errs = append(errs, field.Invalid(field.NewPath("self-signed-ca-overlap"), o.SelfSignedCAOverlap.String(),
			fmt.Sprintf("must be at most a sixth of --self-signed-ca-duration, %s: the old CA, renewed with a third of its life left, must outlast both overlaps", limit)))
	}
	return errs
}
