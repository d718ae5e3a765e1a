package selfsignedtls

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/utils/ptr"

	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/selfsigned"
)

// config is a Manager's configuration for the Secret crdguard-tls in ns
// and the configurations named ns, serving localhost.
func config(ns string) selfsigned.Config {
	return selfsigned.Config{
		Namespace:                       ns,
		Name:                            "crdguard-tls",
		DNSNames:                        []string{"localhost"},
		ValidatingWebhookConfigurations: []string{ns},
		MutatingWebhookConfigurations:   []string{ns},
		Resync:                          time.Minute,
	}
}

func TestSelfSignedCreateAndServe(t *testing.T) {
	ns := namespace(t)
	createConfigurations(t, ns, "https://localhost:1")
	m := startManager(t, config(ns), testr.New(t))

	secret := getSecret(t, ns)
	if secret.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret type %s, want %s", secret.Type, corev1.SecretTypeTLS)
	}
	cas := certs(t, secret.Data["ca.crt"])
	if len(cas) != 1 || !cas[0].IsCA {
		t.Fatalf("ca.crt holds %d certificates, want one CA", len(cas))
	}
	// Served from memory: exactly what the Secret holds.
	served := serve(t, m)
	leaf := certs(t, secret.Data["tls.crt"])[0]
	if !leaf.Equal(handshake(t, served, secret.Data["ca.crt"])) {
		t.Error("the certificate served is not the Secret's tls.crt")
	}
	if want := []string{"localhost"}; len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != want[0] {
		t.Errorf("DNS names %v, want %v", leaf.DNSNames, want)
	}
	if d := leaf.NotAfter.Sub(leaf.NotBefore); d != selfsigned.DefaultDuration+time.Hour {
		t.Errorf("validity %s, want the default %s and an hour's backdate", d, selfsigned.DefaultDuration)
	}
	// Every webhook of both configurations trusts ca.crt.
	localcluster.WaitFor(t, time.Minute, "the CA bundle is injected", func(ctx context.Context) (bool, error) {
		return injected(t, ns, secret.Data["ca.crt"]), nil
	})
	// A client trusting another CA does not connect.
	other, _, err := certutil.GenerateSelfSignedCertKey("localhost", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dial(served, other); err == nil {
		t.Error("a client trusting another CA connected")
	}
}

// TestSelfSignedTwoReplicas: two replicas start on a missing Secret at
// once. Exactly one certificate exists and both serve it; a forced renewal
// is done once, and both serve the renewed certificate.
func TestSelfSignedTwoReplicas(t *testing.T) {
	ns := namespace(t)
	createConfigurations(t, ns, "https://localhost:1")
	var managers [2]*selfsigned.Manager
	var seen [2]*servedLog
	var errs [2]error
	var wg sync.WaitGroup
	for i := range managers {
		wg.Go(func() {
			managers[i], errs[i] = selfsigned.New(t.Context(), cluster.kube, config(ns), testr.New(t).WithName(string(rune('a'+i))))
		})
	}
	wg.Wait()
	for i, m := range managers {
		if errs[i] != nil {
			t.Fatalf("replica %d: %v", i, errs[i])
		}
		seen[i] = &servedLog{}
		m.RegisterCallback(seen[i].add)
		start(t, m)
	}
	first := certs(t, getSecret(t, ns).Data["tls.crt"])[0]
	for i := range managers {
		if got := seen[i].serials(); len(got) != 1 || got[0] != first.SerialNumber.String() {
			t.Fatalf("replica %d serves %v, want the Secret's %s", i, got, first.SerialNumber)
		}
	}

	annotate(t, ns, selfsigned.RenewServing)
	var renewed *x509.Certificate
	localcluster.WaitFor(t, time.Minute, "both replicas serve the renewed certificate", func(ctx context.Context) (bool, error) {
		secret := getSecret(t, ns)
		if secret.Annotations[selfsigned.AnnotationRenew] != "" {
			return false, nil
		}
		renewed = certs(t, secret.Data["tls.crt"])[0]
		for i := range managers {
			got := seen[i].serials()
			if got[len(got)-1] != renewed.SerialNumber.String() {
				return false, nil
			}
		}
		return true, nil
	})
	if renewed.Equal(first) {
		t.Fatal("the serving certificate was not renewed")
	}
	// Each replica served exactly the first and the renewed certificate:
	// the replica that lost the race read the winner's instead of issuing
	// its own.
	for i := range managers {
		if got := seen[i].serials(); len(got) != 2 || got[0] != first.SerialNumber.String() || got[1] != renewed.SerialNumber.String() {
			t.Errorf("replica %d served %v, want [%s %s]", i, got, first.SerialNumber, renewed.SerialNumber)
		}
	}
}

// TestSelfSignedReinjection: what resets a caBundle (a helm upgrade
// rendering the configuration without it) is undone, and a configuration
// created after the Manager started is injected.
func TestSelfSignedReinjection(t *testing.T) {
	ns := namespace(t)
	cfg := config(ns)
	cfg.MutatingWebhookConfigurations = []string{ns + "-later"}
	createConfigurations(t, ns, "https://localhost:1")
	startManager(t, cfg, testr.New(t))
	bundle := getSecret(t, ns).Data["ca.crt"]
	vwcs := cluster.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	localcluster.WaitFor(t, time.Minute, "the CA bundle is injected", func(ctx context.Context) (bool, error) {
		c, err := vwcs.Get(ctx, ns, metav1.GetOptions{})
		return err == nil && bytes.Equal(c.Webhooks[0].ClientConfig.CABundle, bundle) && bytes.Equal(c.Webhooks[1].ClientConfig.CABundle, bundle), err
	})

	patch := []byte(`[{"op":"remove","path":"/webhooks/1/clientConfig/caBundle"},{"op":"replace","path":"/webhooks/0/clientConfig/caBundle","value":""}]`)
	if _, err := vwcs.Patch(t.Context(), ns, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	localcluster.WaitFor(t, time.Minute, "the reset CA bundles are injected again", func(ctx context.Context) (bool, error) {
		c, err := vwcs.Get(ctx, ns, metav1.GetOptions{})
		return err == nil && bytes.Equal(c.Webhooks[0].ClientConfig.CABundle, bundle) && bytes.Equal(c.Webhooks[1].ClientConfig.CABundle, bundle), err
	})

	later := mutating(ns+"-later", "https://localhost:1")
	if _, err := cluster.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(t.Context(), later, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cluster.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), later.Name, metav1.DeleteOptions{})
	})
	localcluster.WaitFor(t, time.Minute, "a configuration created later is injected", func(ctx context.Context) (bool, error) {
		c, err := cluster.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, later.Name, metav1.GetOptions{})
		return err == nil && bytes.Equal(c.Webhooks[0].ClientConfig.CABundle, bundle), err
	})
}

// TestSelfSignedCARotation forces a CA rotation and follows it: the new CA
// is trusted (Secret and configurations) while the old one still signs,
// so a client holding only the bundle from before keeps verifying; then
// the new CA signs while both are trusted; then the old one is dropped.
func TestSelfSignedCARotation(t *testing.T) {
	ns := namespace(t)
	createConfigurations(t, ns, "https://localhost:1")
	cfg := config(ns)
	cfg.CADuration, cfg.Overlap = time.Hour, 3*time.Second
	m := startManager(t, cfg, testr.New(t))
	served := serve(t, m)
	before := getSecret(t, ns).Data["ca.crt"]
	ca1 := certs(t, before)[0]

	annotate(t, ns, selfsigned.RenewCA)
	var during []byte
	localcluster.WaitFor(t, time.Minute, "the next CA is trusted", func(ctx context.Context) (bool, error) {
		during = getSecret(t, ns).Data["ca.crt"]
		return len(certs(t, during)) == 2, nil
	})
	ca2 := certs(t, during)[1]
	if !certs(t, during)[0].Equal(ca1) || ca2.Equal(ca1) {
		t.Fatal("the bundle during the overlap is not the old CA and a new one")
	}
	localcluster.WaitFor(t, time.Minute, "both CAs are injected", func(ctx context.Context) (bool, error) {
		return injected(t, ns, during), nil
	})
	trustedSince, err := time.Parse(time.RFC3339Nano, getSecret(t, ns).Annotations["crdguard.dev/ca-next-trusted-since"])
	if err != nil {
		t.Fatalf("when the next CA was trusted: %v", err)
	}
	// Until the switch the old CA signs: the bundle from before the
	// rotation still verifies what is served.
	var overlapHandshakes int
	var switched *x509.Certificate
	for switched == nil {
		leaf, err := dial(served, before)
		if err != nil {
			// Only the switch to the new CA may end this.
			if leaf, err = dial(served, during); err != nil {
				t.Fatalf("during the rotation, a client with both CAs: %v", err)
			}
			if leaf.CheckSignatureFrom(ca2) != nil {
				t.Fatalf("the certificate served is signed by neither CA")
			}
			switched = leaf
			continue
		}
		if leaf.CheckSignatureFrom(ca1) != nil {
			t.Fatal("a certificate verified by the old bundle is not the old CA's")
		}
		overlapHandshakes++
		time.Sleep(100 * time.Millisecond)
	}
	if overlapHandshakes == 0 {
		t.Error("the old CA never signed after the next one was trusted")
	}
	// The new CA signed no earlier than an overlap after it was trusted:
	// its first certificate was issued then (NotBefore is an hour back).
	if issued := switched.NotBefore.Add(time.Hour); issued.Before(trustedSince.Add(cfg.Overlap).Truncate(time.Second)) {
		t.Errorf("the new CA signed at %s, before the overlap ended at %s", issued, trustedSince.Add(cfg.Overlap))
	}
	// The new CA signs; the old one stays trusted, then leaves.
	var after []byte
	localcluster.WaitFor(t, time.Minute, "the old CA leaves the bundle", func(ctx context.Context) (bool, error) {
		after = getSecret(t, ns).Data["ca.crt"]
		if cas := certs(t, after); len(cas) == 2 {
			if !cas[0].Equal(ca1) || !cas[1].Equal(ca2) {
				t.Fatal("the bundle after the switch is not both CAs")
			}
			return false, nil
		}
		return true, nil
	})
	if cas := certs(t, after); len(cas) != 1 || !cas[0].Equal(ca2) {
		t.Fatalf("the bundle after the rotation holds %d certificates, want the new CA alone", len(cas))
	}
	localcluster.WaitFor(t, time.Minute, "the configurations trust the new CA alone", func(ctx context.Context) (bool, error) {
		return injected(t, ns, after), nil
	})
	if leaf := handshake(t, served, after); leaf.CheckSignatureFrom(ca2) != nil {
		t.Error("the certificate served after the rotation is not the new CA's")
	}
	secret := getSecret(t, ns)
	for _, key := range []string{"ca-next.crt", "ca-next.key", "ca-previous.crt"} {
		if _, ok := secret.Data[key]; ok {
			t.Errorf("%s is still in the Secret after the rotation", key)
		}
	}
}

// TestSelfSignedStartOver: a Secret deleted, or overwritten with what holds
// no usable CA, is started over with a new CA, which is injected and
// served.
func TestSelfSignedStartOver(t *testing.T) {
	ns := namespace(t)
	createConfigurations(t, ns, "https://localhost:1")
	m := startManager(t, config(ns), testr.New(t))
	served := serve(t, m)
	secrets := cluster.kube.CoreV1().Secrets(ns)
	for _, tc := range []struct {
		name  string
		spoil func(ctx context.Context) error
	}{{
		name: "deleted",
		spoil: func(ctx context.Context) error {
			return secrets.Delete(ctx, "crdguard-tls", metav1.DeleteOptions{})
		},
	}, {
		name: "garbage",
		spoil: func(ctx context.Context) error {
			s := getSecret(t, ns)
			s.Data["ca-signing.crt"] = []byte("garbage")
			_, err := secrets.Update(ctx, s, metav1.UpdateOptions{})
			return err
		},
	}} {
		before := certs(t, getSecret(t, ns).Data["ca.crt"])[0]
		if err := tc.spoil(t.Context()); err != nil {
			t.Fatal(err)
		}
		var bundle []byte
		localcluster.WaitFor(t, time.Minute, tc.name+": a new CA is injected and served", func(ctx context.Context) (bool, error) {
			s, err := secrets.Get(ctx, "crdguard-tls", metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			bundle = s.Data["ca.crt"]
			cas, err := certutil.ParseCertsPEM(bundle)
			if err != nil || len(cas) != 1 || cas[0].Equal(before) || !injected(t, ns, bundle) {
				return false, nil
			}
			_, err = dial(served, bundle)
			return err == nil, nil
		})
	}
}

// startManager makes a Manager and starts it until the test ends.
func startManager(t *testing.T, cfg selfsigned.Config, log logr.Logger) *selfsigned.Manager {
	t.Helper()
	m, err := selfsigned.New(t.Context(), cluster.kube, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	start(t, m)
	return m
}

// start runs m until the test ends.
func start(t *testing.T, m *selfsigned.Manager) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	})
}

// serve runs a TLS server with m's certificate until the test ends and
// returns its address.
func serve(t *testing.T, m *selfsigned.Manager) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{GetCertificate: m.GetCertificate}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// dial handshakes with addr as the API server would: trusting only bundle,
// verifying the name localhost. It returns the certificate served.
func dial(addr string, bundle []byte) (*x509.Certificate, error) {
	pool, err := certutil.NewPoolFromBytes(bundle)
	if err != nil {
		return nil, err
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, &tls.Config{RootCAs: pool, ServerName: "localhost"})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0], nil
}

func handshake(t *testing.T, addr string, bundle []byte) *x509.Certificate {
	t.Helper()
	leaf, err := dial(addr, bundle)
	if err != nil {
		t.Fatalf("TLS handshake trusting %d CAs: %v", len(certs(t, bundle)), err)
	}
	return leaf
}

func getSecret(t *testing.T, ns string) *corev1.Secret {
	t.Helper()
	s, err := cluster.kube.CoreV1().Secrets(ns).Get(t.Context(), "crdguard-tls", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// annotate asks for a renewal as an operator would, with kubectl annotate.
func annotate(t *testing.T, ns, renew string) {
	t.Helper()
	patch := []byte(`{"metadata":{"annotations":{"` + selfsigned.AnnotationRenew + `":"` + renew + `"}}}`)
	if _, err := cluster.kube.CoreV1().Secrets(ns).Patch(t.Context(), "crdguard-tls", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func certs(t *testing.T, data []byte) []*x509.Certificate {
	t.Helper()
	c, err := certutil.ParseCertsPEM(data)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// injected reports whether every webhook of the configurations named ns
// trusts exactly bundle.
func injected(t *testing.T, ns string, bundle []byte) bool {
	t.Helper()
	admission := cluster.kube.AdmissionregistrationV1()
	vwc, err := admission.ValidatingWebhookConfigurations().Get(t.Context(), ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mwc, err := admission.MutatingWebhookConfigurations().Get(t.Context(), ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bundles := [][]byte{mwc.Webhooks[0].ClientConfig.CABundle}
	for _, w := range vwc.Webhooks {
		bundles = append(bundles, w.ClientConfig.CABundle)
	}
	for _, b := range bundles {
		if !bytes.Equal(b, bundle) {
			return false
		}
	}
	return true
}

// createConfigurations creates a ValidatingWebhookConfiguration with two
// webhooks and a MutatingWebhookConfiguration with one, named ns, without
// caBundles, for a kind that does not exist: the API server never calls
// them.
func createConfigurations(t *testing.T, ns, url string) {
	t.Helper()
	admission := cluster.kube.AdmissionregistrationV1()
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{validating("a.crdguard.dev", url), validating("b.crdguard.dev", url)},
	}
	if _, err := admission.ValidatingWebhookConfigurations().Create(t.Context(), vwc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admission.MutatingWebhookConfigurations().Create(t.Context(), mutating(ns, url), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admission.ValidatingWebhookConfigurations().Delete(context.Background(), ns, metav1.DeleteOptions{})
		_ = admission.MutatingWebhookConfigurations().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
}

var unusedRules = []admissionregistrationv1.RuleWithOperations{{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{"nothing.crdguard.dev"}, APIVersions: []string{"v1"}, Resources: []string{"nothings"}},
}}

func validating(name, url string) admissionregistrationv1.ValidatingWebhook {
	return admissionregistrationv1.ValidatingWebhook{
		Name:                    name,
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To(url + "/validate")},
		Rules:                   unusedRules,
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
		AdmissionReviewVersions: []string{"v1"},
	}
}

func mutating(name, url string) *admissionregistrationv1.MutatingWebhookConfiguration {
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "m.crdguard.dev",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To(url + "/mutate")},
			Rules:                   unusedRules,
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

// servedLog records the serial of every certificate a Manager serves.
type servedLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *servedLog) add(c tls.Certificate) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, c.Leaf.SerialNumber.String())
}

func (l *servedLog) serials() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}
