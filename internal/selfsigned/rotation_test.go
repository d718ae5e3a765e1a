package selfsigned

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	certutil "k8s.io/client-go/util/cert"
)

var testConfig = Config{
	Namespace:  "crdguard-system",
	Name:       "crdguard-tls",
	DNSNames:   []string{"crdguard.crdguard-system.svc", "crdguard.crdguard-system.svc.cluster.local"},
	CADuration: 300 * time.Hour,
	Duration:   30 * time.Hour,
	Overlap:    10 * time.Hour,
}.withDefaults()

// start is the time every lifecycle test begins at.
var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// TestLifecycle walks one CA through its whole life: serving certificate
// renewals, then a rotation with both overlaps. At every step the
// certificate served is checked by a real TLS handshake against the bundle
// a client holds, at the step's time.
func TestLifecycle(t *testing.T) {
	c := testConfig
	s, err := c.fresh(start)
	if err != nil {
		t.Fatal(err)
	}
	ca1 := s.signing.cert
	if got := bundleCerts(t, s); len(got) != 1 || !got[0].Equal(ca1) {
		t.Fatalf("fresh bundle %v, want the CA alone", subjects(got))
	}
	if !covers(s.serving.cert, c.DNSNames) || s.serving.cert.CheckSignatureFrom(ca1) != nil {
		t.Fatalf("fresh serving certificate %v not for %v signed by the CA", s.serving.cert.DNSNames, c.DNSNames)
	}
	if d := s.serving.cert.NotAfter.Sub(start); d != c.Duration {
		t.Errorf("serving certificate valid for %s, want %s", d, c.Duration)
	}
	before := s.bundle()
	expectTrust(t, s, before, start)

	// Nothing is due right away.
	advance(t, c, s, start.Add(time.Minute), true)

	// The serving certificate is reissued by the same CA at two thirds.
	serving := s.serving.cert
	due := renewalTime(serving)
	if want := start.Add(20*time.Hour - time.Hour/3); !due.Equal(want) {
		t.Errorf("serving renewal at %s, want %s (two thirds of 30h plus the 1h backdate)", due, want)
	}
	advance(t, c, s, due.Add(-time.Second), true)
	advance(t, c, s, due, true, "serving certificate issued: due")
	if s.serving.cert.Equal(serving) || s.serving.cert.CheckSignatureFrom(ca1) != nil {
		t.Fatal("the renewed serving certificate is not new or not signed by the same CA")
	}
	expectTrust(t, s, before, due)

	// The CA is due: the next CA joins the bundle; the serving certificate,
	// due as well, is still issued by the old one.
	rotation := renewalTime(ca1)
	advance(t, c, s, rotation, true, "next CA trusted", "serving certificate issued: due")
	serving = s.serving.cert
	if serving.CheckSignatureFrom(ca1) != nil {
		t.Fatal("the next CA signed before the overlap")
	}
	ca2 := s.next.cert
	if got := bundleCerts(t, s); len(got) != 2 || !got[0].Equal(ca1) || !got[1].Equal(ca2) {
		t.Fatalf("bundle during the overlap %v, want both CAs", subjects(got))
	}
	during := s.bundle()
	// A client that still holds the bundle from before the rotation
	// verifies throughout the overlap.
	expectTrust(t, s, before, rotation)
	expectTrust(t, s, before, rotation.Add(c.Overlap-time.Second))
	advance(t, c, s, rotation.Add(c.Overlap-time.Second), true)

	// The overlap is over, but the configurations do not hold the bundle
	// yet: the next CA must not sign.
	switchAt := rotation.Add(c.Overlap)
	advance(t, c, s, switchAt, false)
	if s.next == nil {
		t.Fatal("the next CA signs although its bundle was not injected")
	}
	// Injected: it signs, and the old CA stays trusted for another overlap.
	advance(t, c, s, switchAt, true, "next CA signs", "serving certificate issued: none usable")
	if !s.signing.cert.Equal(ca2) || s.next != nil || !s.previous.Equal(ca1) {
		t.Fatalf("after the switch: signing %s, next %v, previous %v", s.signing.cert.Subject, s.next, s.previous)
	}
	if s.serving.cert.CheckSignatureFrom(ca2) != nil {
		t.Fatal("the serving certificate is not signed by the new CA")
	}
	if got := bundleCerts(t, s); len(got) != 2 || !got[0].Equal(ca1) || !got[1].Equal(ca2) {
		t.Fatalf("bundle after the switch %v, want both CAs", subjects(got))
	}
	expectTrust(t, s, during, switchAt)
	// A replica that has not seen the switch yet still serves the old
	// CA's certificate, and the bundle still verifies it.
	if err := verify(s.bundle(), serving, switchAt); err != nil {
		t.Errorf("the bundle after the switch rejects the old CA's certificate: %v", err)
	}
	// The pre-rotation bundle no longer verifies: the overlap is what made
	// it safe for a client to catch up.
	if err := verify(before, s.serving.cert, switchAt); err == nil {
		t.Error("a bundle with only the old CA verifies the new CA's certificate")
	}

	// After the second overlap the old CA leaves the bundle.
	retire := switchAt.Add(c.Overlap)
	advance(t, c, s, retire.Add(-time.Second), true)
	advance(t, c, s, retire, true, "previous CA no longer trusted")
	if got := bundleCerts(t, s); len(got) != 1 || !got[0].Equal(ca2) {
		t.Fatalf("bundle after the rotation %v, want the new CA alone", subjects(got))
	}
	expectTrust(t, s, s.bundle(), retire)
	// The old CA was still valid through both overlaps.
	if !retire.Before(ca1.NotAfter) {
		t.Errorf("the old CA expired at %s, before it left the bundle at %s", ca1.NotAfter, retire)
	}
}

// TestSwitchWaitsForInjection: while the configurations do not trust the
// next CA it does not sign, but everything else goes on: an unusable
// serving certificate is reissued by the CA they do trust.
func TestSwitchWaitsForInjection(t *testing.T) {
	c := testConfig
	s, err := c.fresh(start)
	if err != nil {
		t.Fatal(err)
	}
	ca1 := s.signing.cert
	s.renew = RenewCA
	advance(t, c, s, start, true, "CA rotation requested", "next CA trusted")
	s.serving = nil
	advance(t, c, s, start.Add(c.Overlap), false, "serving certificate issued: none usable")
	if s.next == nil || !s.signing.cert.Equal(ca1) || s.serving.cert.CheckSignatureFrom(ca1) != nil {
		t.Fatal("the next CA signed before it was injected")
	}
	advance(t, c, s, start.Add(c.Overlap), true, "next CA signs", "serving certificate issued: none usable")
}

// TestNextEvent: the Manager wakes exactly when advance has work.
func TestNextEvent(t *testing.T) {
	c := testConfig
	s, err := c.fresh(start)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.nextEvent(s), renewalTime(s.serving.cert); !got.Equal(want) {
		t.Errorf("next event %s, want the serving renewal %s", got, want)
	}
	s.renew = RenewCA
	advance(t, c, s, start, true, "CA rotation requested", "next CA trusted")
	if got, want := c.nextEvent(s), start.Add(c.Overlap); !got.Equal(want) {
		t.Errorf("next event %s, want the end of the overlap %s", got, want)
	}
	advance(t, c, s, start.Add(c.Overlap), true, "next CA signs", "serving certificate issued: none usable")
	if got, want := c.nextEvent(s), start.Add(2*c.Overlap); !got.Equal(want) {
		t.Errorf("next event %s, want the old CA's retirement %s", got, want)
	}
}

func TestRenewRequests(t *testing.T) {
	c := testConfig
	for _, tc := range []struct {
		renew string
		want  []string
	}{
		{RenewServing, []string{"renewal of the serving certificate requested", "serving certificate issued: none usable"}},
		{RenewCA, []string{"CA rotation requested", "next CA trusted"}},
		{"everything", []string{`ignored crdguard.dev/renew="everything": want "serving" or "ca"`}},
	} {
		t.Run(tc.renew, func(t *testing.T) {
			s, err := c.fresh(start)
			if err != nil {
				t.Fatal(err)
			}
			s.renew = tc.renew
			advance(t, c, s, start.Add(time.Minute), true, tc.want...)
			if s.renew != "" {
				t.Errorf("the request %q stays", s.renew)
			}
		})
	}

	// A CA rotation requested during one is not restarted.
	s, err := c.fresh(start)
	if err != nil {
		t.Fatal(err)
	}
	s.renew = RenewCA
	advance(t, c, s, start, true, "CA rotation requested", "next CA trusted")
	next := s.next.cert
	s.renew = RenewCA
	advance(t, c, s, start.Add(time.Minute), true, "CA rotation requested")
	if !s.next.cert.Equal(next) || !s.nextTrusted.Equal(start) {
		t.Error("a second request restarted the rotation")
	}
}

func TestServingReissued(t *testing.T) {
	c := testConfig
	s, err := c.fresh(start)
	if err != nil {
		t.Fatal(err)
	}
	// Fewer names than the certificate has are covered; a new one is not.
	fewer := c
	fewer.DNSNames = c.DNSNames[:1]
	advance(t, fewer, s, start, true)
	more := c
	more.DNSNames = append(slices.Clone(c.DNSNames), "crdguard.example")
	advance(t, more, s, start, true, "serving certificate issued: DNS names changed")
	if !slices.Equal(s.serving.cert.DNSNames, more.DNSNames) {
		t.Errorf("DNS names %v, want %v", s.serving.cert.DNSNames, more.DNSNames)
	}
	// A serving certificate of another CA is replaced.
	other, err := c.fresh(start)
	if err != nil {
		t.Fatal(err)
	}
	s.serving = other.serving
	advance(t, c, s, start, true, "serving certificate issued: not signed by the signing CA")

	// Never valid beyond its CA.
	longer := c
	longer.Duration = 2 * c.CADuration
	serving, err := newServing(s.signing, c.DNSNames, start, longer.Duration)
	if err != nil {
		t.Fatal(err)
	}
	if !serving.cert.NotAfter.Equal(s.signing.cert.NotAfter) {
		t.Errorf("serving certificate until %s, want its CA's %s", serving.cert.NotAfter, s.signing.cert.NotAfter)
	}
}

// TestSecretRoundTrip: what encode writes, decode reads back, during a
// rotation with every part present.
func TestSecretRoundTrip(t *testing.T) {
	c := testConfig
	s, err := c.fresh(start)
	if err != nil {
		t.Fatal(err)
	}
	s.renew = RenewCA
	advance(t, c, s, start, true, "CA rotation requested", "next CA trusted")
	advance(t, c, s, start.Add(c.Overlap), true, "next CA signs", "serving certificate issued: none usable")
	s.renew = RenewCA
	advance(t, c, s, start.Add(c.Overlap+time.Minute), true, "CA rotation requested", "next CA trusted")
	if s.previous == nil || s.next == nil {
		t.Fatal("want a previous and a next CA for the round trip")
	}
	secret, err := newSecret(c.Namespace, c.Name, s)
	if err != nil {
		t.Fatal(err)
	}
	if secret.Type != corev1.SecretTypeTLS {
		t.Errorf("type %s", secret.Type)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range secret.Data {
			if !yield(k) {
				return
			}
		}
	})
	if want := []string{"ca-next.crt", "ca-next.key", "ca-previous.crt", "ca-signing.crt", "ca-signing.key", "ca.crt", "tls.crt", "tls.key"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	got, err := decode(secret)
	if err != nil {
		t.Fatal(err)
	}
	if !got.signing.cert.Equal(s.signing.cert) || !got.serving.cert.Equal(s.serving.cert) || !got.next.cert.Equal(s.next.cert) ||
		!got.previous.Equal(s.previous) || !got.nextTrusted.Equal(s.nextTrusted) || !got.previousUntil.Equal(s.previousUntil) {
		t.Errorf("decoded state differs from the encoded one")
	}
	if string(got.bundle()) != string(secret.Data[KeyBundle]) {
		t.Error("ca.crt is not the decoded state's bundle")
	}
	// Other annotations are kept; the renew request is gone.
	secret.Annotations["team"] = "platform"
	secret.Annotations[AnnotationRenew] = RenewServing
	if err := got.encode(secret); err != nil {
		t.Fatal(err)
	}
	if secret.Annotations["team"] != "platform" || secret.Annotations[AnnotationRenew] != "" {
		t.Errorf("annotations %v", secret.Annotations)
	}
}

func TestDecodeUnusable(t *testing.T) {
	c := testConfig
	s, err := c.fresh(start)
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.fresh(start)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(data map[string][]byte)
		want   string // "" when decode succeeds without a serving certificate
	}{
		{"no signing CA", func(d map[string][]byte) { delete(d, keySigningCert) }, "ca-signing.crt: certificate: data does not contain any valid RSA or ECDSA certificates"},
		{"another key", func(d map[string][]byte) { d[keySigningKey] = other.signing.keyPEM }, "ca-signing.crt: the private key does not belong to the certificate"},
		{"not a CA", func(d map[string][]byte) {
			d[keySigningCert], d[keySigningKey] = s.serving.certPEM, s.serving.keyPEM
		}, "ca-signing.crt: not a CA"},
		{"garbage serving certificate", func(d map[string][]byte) { d[corev1.TLSCertKey] = []byte("garbage") }, ""},
		{"serving key of another certificate", func(d map[string][]byte) { d[corev1.TLSPrivateKeyKey] = other.serving.keyPEM }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret, err := newSecret(c.Namespace, c.Name, s)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(secret.Data)
			got, err := decode(secret)
			if tc.want != "" {
				if err == nil || err.Error() != tc.want {
					t.Fatalf("error %v, want %s", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.serving != nil {
				t.Fatal("an unusable serving certificate was decoded")
			}
			advance(t, c, got, start, true, "serving certificate issued: none usable")
		})
	}
}

func TestConfigValidate(t *testing.T) {
	if err := testConfig.Validate(); err != nil {
		t.Fatal(err)
	}
	err := Config{CADuration: 60 * time.Hour, Duration: -time.Hour, Overlap: 11 * time.Hour, Resync: time.Minute}.Validate()
	want := "the Secret's namespace and name are required\nat least one DNS name is required\nduration -1h0m0s must be positive\noverlap 11h0m0s is more than a sixth of the CA duration 60h0m0s"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

// advance advances s at now and checks it did exactly want.
func advance(t *testing.T, c Config, s *state, now time.Time, injected bool, want ...string) {
	t.Helper()
	did, err := c.advance(s, now, injected)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(did, want) {
		t.Fatalf("at %s: did %q, want %q", now.Sub(start), did, want)
	}
}

// expectTrust handshakes over TLS with a server serving s's certificate, as
// a client that trusts only bundle and whose clock says now.
func expectTrust(t *testing.T, s *state, bundle []byte, now time.Time) {
	t.Helper()
	serving, err := tls.X509KeyPair(s.serving.certPEM, s.serving.keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := certutil.NewPoolFromBytes(bundle)
	if err != nil {
		t.Fatal(err)
	}
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	go func() {
		_ = tls.Server(server, &tls.Config{Certificates: []tls.Certificate{serving}, Time: func() time.Time { return now }}).Handshake()
	}()
	conn := tls.Client(client, &tls.Config{RootCAs: pool, ServerName: s.serving.cert.DNSNames[0], Time: func() time.Time { return now }})
	if err := conn.HandshakeContext(t.Context()); err != nil {
		t.Fatalf("at %s: a client trusting %v: %v", now.Sub(start), subjects(bundleOf(t, bundle)), err)
	}
}

// verify checks cert against bundle at now, as a TLS client would.
func verify(bundle []byte, cert *x509.Certificate, now time.Time) error {
	pool, err := certutil.NewPoolFromBytes(bundle)
	if err != nil {
		return err
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: cert.DNSNames[0], CurrentTime: now})
	return err
}

func bundleCerts(t *testing.T, s *state) []*x509.Certificate {
	t.Helper()
	return bundleOf(t, s.bundle())
}

func bundleOf(t *testing.T, bundle []byte) []*x509.Certificate {
	t.Helper()
	certs, err := certutil.ParseCertsPEM(bundle)
	if err != nil {
		t.Fatal(err)
	}
	return certs
}

func subjects(certs []*x509.Certificate) string {
	var names []string
	for _, c := range certs {
		names = append(names, c.Subject.CommonName)
	}
	return strings.Join(names, ", ")
}
