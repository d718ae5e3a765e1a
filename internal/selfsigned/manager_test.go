package selfsigned

import (
	"bytes"
	"crypto/x509"
	"errors"
	"testing"

	"github.com/go-logr/logr/testr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
)

// The races between replicas, made to happen every time. The real API
// server (test/e2e/selfsignedtls) shows the same outcomes, but cannot
// make a replica lose a race on purpose. client-go's fake clientset does
// not check resourceVersions, so a reactor plays the other replica: it
// writes first and answers as the API server then would.

var secretsResource = schema.GroupResource{Resource: "secrets"}

// TestLostCreation: another replica creates the Secret between this one's
// Get and Create. This one serves theirs and writes nothing.
func TestLostCreation(t *testing.T) {
	c := testConfig
	c.Clock = clocktesting.NewFakeClock(start)
	theirs := secretOf(t, c)
	client := fake.NewClientset()
	var creates int
	client.PrependReactor("create", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		creates++
		if err := client.Tracker().Add(theirs.DeepCopy()); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewAlreadyExists(secretsResource, c.Name)
	})
	m, err := New(t.Context(), client, c, testr.New(t))
	if err != nil {
		t.Fatal(err)
	}
	if creates != 1 {
		t.Errorf("%d creations, want 1", creates)
	}
	if served := leafOf(t, m); !bytes.Equal(served.Raw, mustDecode(t, theirs).serving.cert.Raw) {
		t.Error("the replica that lost the creation does not serve the winner's certificate")
	}
	if got := getSecret(t, client, c); !bytes.Equal(got.Data[corev1.TLSCertKey], theirs.Data[corev1.TLSCertKey]) {
		t.Error("the winner's Secret was overwritten")
	}
}

// TestLostCreationUnreadable: another replica creates the Secret first,
// and reading theirs fails. That error is New's: this replica must not
// take the failed read for a Secret without a CA and start over.
func TestLostCreationUnreadable(t *testing.T) {
	c := testConfig
	c.Clock = clocktesting.NewFakeClock(start)
	theirs := secretOf(t, c)
	client := fake.NewClientset()
	down := errors.New("connection refused")
	var gets int
	client.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if gets++; gets == 2 {
			return true, nil, down
		}
		return false, nil, nil
	})
	client.PrependReactor("create", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if err := client.Tracker().Add(theirs.DeepCopy()); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewAlreadyExists(secretsResource, c.Name)
	})
	if _, err := New(t.Context(), client, c, testr.New(t)); !errors.Is(err, down) {
		t.Errorf("New: got %v, want %v", err, down)
	}
	if got := getSecret(t, client, c); !bytes.Equal(got.Data[corev1.TLSCertKey], theirs.Data[corev1.TLSCertKey]) {
		t.Error("the winner's Secret was overwritten")
	}
}

// TestLostUpdate: both replicas act on a renewal request; the other one
// writes first, so this one's update is a Conflict. It reads again, finds
// the renewal done, and serves it without renewing a second time.
func TestLostUpdate(t *testing.T) {
	c := testConfig
	c.Clock = clocktesting.NewFakeClock(start)
	ours := secretOf(t, c)
	client := fake.NewClientset(ours)
	m, err := New(t.Context(), client, c, testr.New(t))
	if err != nil {
		t.Fatal(err)
	}

	requested := getSecret(t, client, c)
	requested.Annotations = map[string]string{AnnotationRenew: RenewServing}
	if _, err := client.CoreV1().Secrets(c.Namespace).Update(t.Context(), requested, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Their renewal: what the other replica wrote first.
	s := mustDecode(t, requested)
	if _, err := c.advance(s, start, true); err != nil {
		t.Fatal(err)
	}
	theirs := requested.DeepCopy()
	if err := s.encode(theirs); err != nil {
		t.Fatal(err)
	}
	var updates int
	client.PrependReactor("update", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		updates++
		if updates > 1 {
			return false, nil, nil
		}
		if err := client.Tracker().Update(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, theirs.DeepCopy(), c.Namespace); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewConflict(secretsResource, c.Name, nil)
	})
	if _, err := m.reconcile(t.Context()); err != nil {
		t.Fatal(err)
	}
	if updates != 1 {
		t.Errorf("%d updates of the Secret, want only the one that lost", updates)
	}
	if served := leafOf(t, m); !bytes.Equal(served.Raw, s.serving.cert.Raw) {
		t.Error("the replica that lost the update does not serve the winner's renewal")
	}
	if got := getSecret(t, client, c); !bytes.Equal(got.Data[corev1.TLSCertKey], theirs.Data[corev1.TLSCertKey]) || got.Annotations[AnnotationRenew] != "" {
		t.Error("the winner's renewal was overwritten")
	}
}

// TestInjectionConflict: a configuration changed between read and write
// (a helm upgrade, another replica) is read again and injected.
func TestInjectionConflict(t *testing.T) {
	c := testConfig
	c.Clock = clocktesting.NewFakeClock(start)
	c.ValidatingWebhookConfigurations = []string{"crdguard"}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{{Name: "a.crdguard.dev"}, {Name: "b.crdguard.dev"}},
	}
	client := fake.NewClientset(vwc)
	var updates int
	client.PrependReactor("update", "validatingwebhookconfigurations", func(k8stesting.Action) (bool, runtime.Object, error) {
		updates++
		if updates == 1 {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}, "crdguard", nil)
		}
		return false, nil, nil
	})
	if _, err := New(t.Context(), client, c, testr.New(t)); err != nil {
		t.Fatal(err)
	}
	if updates != 2 {
		t.Errorf("%d updates, want the one that conflicted and its retry", updates)
	}
	got, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(t.Context(), "crdguard", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bundle := getSecret(t, client, c).Data[KeyBundle]
	for _, w := range got.Webhooks {
		if !bytes.Equal(w.ClientConfig.CABundle, bundle) {
			t.Errorf("%s: caBundle not injected", w.Name)
		}
	}
}

func secretOf(t *testing.T, c Config) *corev1.Secret {
	t.Helper()
	s, err := c.fresh(start)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := newSecret(c.Namespace, c.Name, s)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

func getSecret(t *testing.T, client *fake.Clientset, c Config) *corev1.Secret {
	t.Helper()
	s, err := client.CoreV1().Secrets(c.Namespace).Get(t.Context(), c.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustDecode(t *testing.T, secret *corev1.Secret) *state {
	t.Helper()
	s, err := decode(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func leafOf(t *testing.T, m *Manager) *x509.Certificate {
	t.Helper()
	c, err := m.GetCertificate(nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.Leaf
}
