package selfsignedtls

import (
	"context"
	"crypto/x509"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/cmd/crdguard-webhook/app"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/selfsigned"
	"github.com/crdguard/crdguard/test/localwebhook"
)

// TestSelfSignedWebhook runs crdguard-webhook with --tls-mode=self-signed
// behind the API server, and renews its serving certificate and rotates
// its CA while requests flow: not one may fail.
func TestSelfSignedWebhook(t *testing.T) {
	w := runningWebhook(t)
	ns, addr := w.namespace, w.addr

	// It issued its certificate and injected its CA.
	secret := getSecret(t, ns)
	before := secret.Data["ca.crt"]
	ca1 := certs(t, before)[0]
	localcluster.WaitFor(t, time.Minute, "the webhook's CA is injected", func(ctx context.Context) (bool, error) {
		return injected(t, ns, before), nil
	})
	first := handshake(t, addr, before)
	if !first.Equal(certs(t, secret.Data["tls.crt"])[0]) {
		t.Fatal("the webhook does not serve the Secret's certificate")
	}
	expectExpiryMetric(t, w.metrics, first)
	// The API server calls it: unsafe.yaml is schema-valid, only the
	// webhook denies it.
	localcluster.WaitFor(t, time.Minute, "the API server calls the webhook", func(ctx context.Context) (bool, error) {
		return deniedByWebhook(ctx, readExample(t, "unsafe.yaml", ns)) == nil, nil
	})

	flow := startRequests(t, ns)
	flow.await(t, 20)

	// A forced renewal of the serving certificate.
	annotate(t, ns, selfsigned.RenewServing)
	var renewed *x509.Certificate
	localcluster.WaitFor(t, time.Minute, "the renewed certificate is served", func(ctx context.Context) (bool, error) {
		renewed = handshake(t, addr, before)
		return !renewed.Equal(first), nil
	})
	flow.await(t, 20)

	// A forced CA rotation: the new CA signs, the old one leaves.
	annotate(t, ns, selfsigned.RenewCA)
	var after []byte
	localcluster.WaitFor(t, time.Minute, "the CA is rotated", func(ctx context.Context) (bool, error) {
		after = getSecret(t, ns).Data["ca.crt"]
		cas := certs(t, after)
		return len(cas) == 1 && !cas[0].Equal(ca1) && injected(t, ns, after), nil
	})
	rotated := handshake(t, addr, after)
	if rotated.CheckSignatureFrom(certs(t, after)[0]) != nil {
		t.Fatal("the certificate served after the rotation is not the new CA's")
	}
	if _, err := dial(addr, before); err == nil {
		t.Error("a client trusting only the old CA still connects after the rotation")
	}
	flow.await(t, 20)
	requests, failures := flow.stop()

	t.Logf("%d requests through the API server during a serving renewal and a CA rotation, %d failed", requests, len(failures))
	for _, f := range failures[:min(len(failures), 10)] {
		t.Error(f)
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d requests failed", len(failures), requests)
	}
	expectExpiryMetric(t, w.metrics, rotated)
}

// requests sends requests through the API server that reach both webhooks
// until stopped: a dry-run create of good.yaml (allowed, mutated) and one
// of unsafe.yaml (denied by the webhook), in turn.
type requests struct {
	mu       sync.Mutex
	count    int
	failures []string
	done     chan struct{}
	stopped  chan struct{}
}

// maxRequests bounds the flow whatever happens to the test.
const maxRequests = 5000

func startRequests(t *testing.T, ns string) *requests {
	good, unsafe := readExample(t, "good.yaml", ns), readExample(t, "unsafe.yaml", ns)
	r := &requests{done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(r.stopped)
		for i := 0; i < maxRequests; i++ {
			select {
			case <-r.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			var err error
			if i%2 == 0 {
				obj := good.DeepCopy()
				if err = cluster.client.Create(ctx, obj, client.DryRunAll); err == nil {
					// /mutate ran: the policy's default cpu limit is set.
					if _, ok, _ := unstructured.NestedString(obj.Object, "spec", "resources", "limits", "cpu"); !ok {
						err = fmt.Errorf("good.yaml was not mutated")
					}
				}
			} else {
				err = deniedByWebhook(ctx, unsafe.DeepCopy())
			}
			cancel()
			r.mu.Lock()
			r.count++
			if err != nil {
				r.failures = append(r.failures, fmt.Sprintf("request %d at %s: %v", i, time.Now().Format(time.StampMilli), err))
			}
			r.mu.Unlock()
		}
	}()
	t.Cleanup(func() { r.stop() })
	return r
}

// await waits until n more requests were sent.
func (r *requests) await(t *testing.T, n int) {
	t.Helper()
	r.mu.Lock()
	target := r.count + n
	r.mu.Unlock()
	localcluster.WaitFor(t, time.Minute, fmt.Sprintf("%d more requests were sent", n), func(context.Context) (bool, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.count >= target, nil
	})
}

// stop ends the flow and returns how many requests were sent and the
// failures.
func (r *requests) stop() (int, []string) {
	select {
	case <-r.done:
	default:
		close(r.done)
	}
	<-r.stopped
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count, r.failures
}

// deniedByWebhook dry-runs the creation of unsafe and returns nil when the
// webhook denied it: Invalid, with the GuardPolicy's finding.
func deniedByWebhook(ctx context.Context, unsafe *unstructured.Unstructured) error {
	err := cluster.client.Create(ctx, unsafe, client.DryRunAll)
	if apierrors.IsInvalid(err) && strings.Contains(err.Error(), "limits.memory 8Gi is 8.0× requests.memory 1Gi") {
		return nil
	}
	return fmt.Errorf("unsafe.yaml: %v, want the webhook's denial", err)
}

// readExample reads a file of examples/mysql that holds one object, moved
// into namespace ns.
func readExample(t *testing.T, name, ns string) *unstructured.Unstructured {
	t.Helper()
	obj, err := localcluster.ReadObject(filepath.Join(cluster.examples, name), "")
	if err != nil {
		t.Fatal(err)
	}
	obj.SetNamespace(ns)
	return obj
}

// registerMySQL registers url's /validate and /mutate for MySQLClusters
// in configurations named ns, without a caBundle, failing closed.
func registerMySQL(ctx context.Context, ns, url string) error {
	// Only the webhook's namespace: the other tests create no
	// MySQLClusters, but a stray one must not reach it.
	hook := localcluster.Webhook{
		Rules:             localcluster.MySQLClusters(admissionregistrationv1.Create, admissionregistrationv1.Update),
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
	}
	validating, mutating := hook, hook
	validating.Name, validating.URL = "validate.crdguard.dev", url+"/validate"
	mutating.Name, mutating.URL = "mutate.crdguard.dev", url+"/mutate"
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{validating.Validating()},
	}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{mutating.Mutating()},
	}
	admission := cluster.kube.AdmissionregistrationV1()
	if _, err := admission.ValidatingWebhookConfigurations().Create(ctx, vwc, metav1.CreateOptions{}); err != nil {
		return err
	}
	_, err := admission.MutatingWebhookConfigurations().Create(ctx, mwc, metav1.CreateOptions{})
	return err
}

// expectExpiryMetric checks the certificate-expiry metric names served's
// expiry.
func expectExpiryMetric(t *testing.T, metricsURL string, served *x509.Certificate) {
	t.Helper()
	body, err := localcluster.ScrapeMetrics(t.Context(), metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := localcluster.MetricSample(body, "crdguard_serving_certificate_expiry_timestamp_seconds"); !ok || int64(got) != served.NotAfter.Unix() {
		t.Errorf("expiry metric %v (present %v), want the served certificate's %d", got, ok, served.NotAfter.Unix())
	}
}

// webhookProcess is a crdguard-webhook running in-process.
type webhookProcess struct {
	once      sync.Once
	err       error
	namespace string // of its Secret and the MySQLClusters sent to it
	addr      string // host:port it serves TLS on
	metrics   string // URL of /metrics
	stop      func() error
}

// theWebhook is the package's one crdguard-webhook. app.Run registers
// process-wide metrics, so it starts once per test binary, on first use,
// and TestMain stops it; a repeated test (-count) finds it as the last run
// left it, its CA rotation complete.
var theWebhook webhookProcess

// runningWebhook starts the webhook unless it runs.
func runningWebhook(t *testing.T) *webhookProcess {
	t.Helper()
	theWebhook.once.Do(func() { theWebhook.err = startWebhook() })
	if theWebhook.err != nil {
		t.Fatalf("starting crdguard-webhook: %v", theWebhook.err)
	}
	return &theWebhook
}

// startWebhook runs crdguard-webhook in-process, through the same Run as
// the binary, in self-signed mode, registered for MySQLClusters in its
// namespace, and waits until it is ready.
func startWebhook() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := "selfsigned-webhook"
	if _, err := cluster.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	hook, err := localwebhook.Start(ctx, func(o *app.Options) error {
		// Registered before the webhook runs, as the chart does, with no
		// caBundle: the webhook injects its own.
		if err := registerMySQL(ctx, ns, fmt.Sprintf("https://localhost:%d", o.Port)); err != nil {
			return fmt.Errorf("registering the webhook: %w", err)
		}
		o.CRDs = []string{filepath.Join(cluster.examples, "crd.yaml")}
		o.Policies = []string{filepath.Join(cluster.examples, "policy.yaml")}
		o.Kubeconfig = cluster.kubeconfig
		o.TLSMode, o.SelfSignedSecret = app.TLSModeSelfSigned, ns+"/crdguard-tls"
		o.SelfSignedDNSNames = []string{"localhost"}
		o.SelfSignedValidatingConfigurations, o.SelfSignedMutatingConfigurations = []string{ns}, []string{ns}
		// Overlaps long enough for the API server to see a changed caBundle
		// (its informer takes milliseconds, more on a loaded machine), short
		// enough for a test.
		o.SelfSignedCADuration, o.SelfSignedCAOverlap = time.Hour, 5*time.Second
		return nil
	})
	if err != nil {
		return fmt.Errorf("the webhook: %w", err)
	}
	theWebhook.stop = func() error {
		err := hook.Stop()
		admission := cluster.kube.AdmissionregistrationV1()
		_ = admission.ValidatingWebhookConfigurations().Delete(context.Background(), ns, metav1.DeleteOptions{})
		_ = admission.MutatingWebhookConfigurations().Delete(context.Background(), ns, metav1.DeleteOptions{})
		return err
	}
	theWebhook.namespace, theWebhook.addr, theWebhook.metrics = ns, hook.Addr, hook.Metrics
	return nil
}
