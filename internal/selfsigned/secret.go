package selfsigned

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Secret's keys. tls.crt, tls.key and ca.crt are the names every
// consumer of a kubernetes.io/tls Secret knows (cert-manager writes the
// same three); the others are the Manager's own.
const (
	// KeyBundle holds every CA a client must trust: the one that signs
	// the serving certificate, and during a rotation the next or the
	// previous one. It is what the configurations' caBundle is set to.
	KeyBundle      = "ca.crt"
	keySigningCert = "ca-signing.crt"
	keySigningKey  = "ca-signing.key"
	keyNextCert    = "ca-next.crt"
	keyNextKey     = "ca-next.key"
	keyPrevious    = "ca-previous.crt"
)

// The Secret's annotations.
const (
	// AnnotationRenew forces a renewal: RenewServing or RenewCA. The
	// Manager removes it when it acts on it.
	AnnotationRenew = "crdguard.dev/renew"
	// RenewServing reissues the serving certificate now.
	RenewServing = "serving"
	// RenewCA starts a CA rotation now; its overlaps still apply.
	RenewCA = "ca"

	// annotationNextTrusted is when the next CA entered the bundle.
	annotationNextTrusted = "crdguard.dev/ca-next-trusted-since"
	// annotationPreviousUntil is when the previous CA leaves the bundle.
	annotationPreviousUntil = "crdguard.dev/ca-previous-trusted-until"
)

// state is what the Secret holds, parsed.
type state struct {
	// signing signs the serving certificate; always set.
	signing *keyPair
	// serving is nil when the Secret's is missing or unusable.
	serving *keyPair
	// next is the CA that takes over once it has been trusted for an
	// overlap, since nextTrusted; nil outside a rotation.
	next        *keyPair
	nextTrusted time.Time
	// previous signed the serving certificates some replicas may still
	// serve; trusted until previousUntil. nil outside a rotation.
	previous      *x509.Certificate
	previousUntil time.Time
	// renew is the AnnotationRenew request, "" for none.
	renew string
}

// bundle is ca.crt: every CA a client must trust now, oldest first.
func (s *state) bundle() []byte {
	var b bytes.Buffer
	if s.previous != nil {
		b.Write(pemOf(s.previous))
	}
	b.Write(s.signing.certPEM)
	if s.next != nil {
		b.Write(s.next.certPEM)
	}
	return b.Bytes()
}

// decode parses the Secret. An error means there is no usable signing CA,
// and the Manager starts over; a missing or unusable serving certificate,
// next or previous CA is only dropped (and reissued or restarted as due).
func decode(secret *corev1.Secret) (*state, error) {
	signing, err := parseKeyPair(secret.Data[keySigningCert], secret.Data[keySigningKey])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keySigningCert, err)
	}
	if !signing.cert.IsCA {
		return nil, fmt.Errorf("%s: not a CA", keySigningCert)
	}
	s := &state{signing: signing, renew: secret.Annotations[AnnotationRenew]}
	if serving, err := parseKeyPair(secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey]); err == nil {
		s.serving = serving
	}
	if _, ok := secret.Data[keyNextCert]; ok {
		next, err := parseKeyPair(secret.Data[keyNextCert], secret.Data[keyNextKey])
		since, terr := time.Parse(time.RFC3339Nano, secret.Annotations[annotationNextTrusted])
		if err == nil && terr == nil && next.cert.IsCA {
			s.next, s.nextTrusted = next, since
		}
	}
	if _, ok := secret.Data[keyPrevious]; ok {
		previous, err := parseCertificate(secret.Data[keyPrevious])
		until, terr := time.Parse(time.RFC3339Nano, secret.Annotations[annotationPreviousUntil])
		if err == nil && terr == nil {
			s.previous, s.previousUntil = previous, until
		}
	}
	return s, nil
}

// encode writes s into secret: its data whole, and the Manager's
// annotations, leaving the others.
func (s *state) encode(secret *corev1.Secret) error {
	if s.serving == nil {
		return errors.New("no serving certificate to store")
	}
	secret.Data = map[string][]byte{
		corev1.TLSCertKey:       s.serving.certPEM,
		corev1.TLSPrivateKeyKey: s.serving.keyPEM,
		KeyBundle:               s.bundle(),
		keySigningCert:          s.signing.certPEM,
		keySigningKey:           s.signing.keyPEM,
	}
	annotations := maps.Clone(secret.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	delete(annotations, AnnotationRenew)
	delete(annotations, annotationNextTrusted)
	delete(annotations, annotationPreviousUntil)
	if s.renew != "" {
		annotations[AnnotationRenew] = s.renew
	}
	if s.next != nil {
		secret.Data[keyNextCert], secret.Data[keyNextKey] = s.next.certPEM, s.next.keyPEM
		annotations[annotationNextTrusted] = s.nextTrusted.UTC().Format(time.RFC3339Nano)
	}
	if s.previous != nil {
		secret.Data[keyPrevious] = pemOf(s.previous)
		annotations[annotationPreviousUntil] = s.previousUntil.UTC().Format(time.RFC3339Nano)
	}
	secret.Annotations = annotations
	return nil
}

// newSecret is the Secret the Manager creates for s.
func newSecret(namespace, name string, s *state) (*corev1.Secret, error) {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace,
			Name:      name,
			Labels:    map[string]string{"app.kubernetes.io/managed-by": "crdguard-webhook"},
		},
		Type: corev1.SecretTypeTLS,
	}
	return secret, s.encode(secret)
}
