package reliability

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/crdguard/crdguard/internal/localca"
	"github.com/crdguard/crdguard/internal/localcluster"
)

// apiServerClientName is the common name of the client certificate the API
// server presents to webhooks.
const apiServerClientName = "kube-apiserver"

// writeAdmissionConfiguration writes into dir a client certificate ca
// signs for apiServerClientName, the kubeconfig that presents it to every
// webhook, and the AdmissionConfiguration that names that kubeconfig for
// both webhook admission plugins. It returns the AdmissionConfiguration's
// path, for --admission-control-config-file.
func writeAdmissionConfiguration(dir string, ca *localca.CA) (string, error) {
	if err := ca.WriteClient(dir, apiServerClientName, 24*time.Hour); err != nil {
		return "", err
	}
	kubeconfig := filepath.Join(dir, "webhook-clients.kubeconfig")
	// "*" is the entry for every webhook, whatever its host.
	if err := os.WriteFile(kubeconfig, fmt.Appendf(nil, `apiVersion: v1
kind: Config
users:
- name: "*"
  user:
    client-certificate: %s
    client-key: %s
`, filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")), 0o600); err != nil {
		return "", err
	}
	config := filepath.Join(dir, "admission.yaml")
	var plugins strings.Builder
	for _, plugin := range []string{"ValidatingAdmissionWebhook", "MutatingAdmissionWebhook"} {
		fmt.Fprintf(&plugins, `- name: %s
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: %s
`, plugin, kubeconfig)
	}
	return config, os.WriteFile(config, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"+plugins.String()), 0o600)
}

// TestClientCertificates runs the webhook with --client-ca-file behind the
// API server, which presents its client certificate: the API server is
// served when its name is allowed and refused when it is not, and a caller
// without a certificate is refused in the handshake.
func TestClientCertificates(t *testing.T) {
	ctx := t.Context()
	if err := localcluster.EnsureNamespace(ctx, cluster.client, clientAuthNamespace, nil); err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "client-ca.crt")
	if err := os.WriteFile(caFile, cluster.clientCA.PEM, 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("the API server's certificate", func(t *testing.T) {
		p := startWebhook(t, "--client-ca-file", caFile, "--client-allowed-names", apiServerClientName)
		registerClientAuth(t, p.addr)
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			return strings.Contains(fmt.Sprint(dryRunCreateIn(ctx, clientAuthNamespace, "unsafe.yaml")), `admission webhook "client-auth.crdguard.dev" denied the request`), nil
		})
		if err != nil {
			t.Fatalf("the webhook never denied unsafe.yaml: %v\n%s", dryRunCreateIn(ctx, clientAuthNamespace, "unsafe.yaml"), p.stderr)
		}
		if err := dryRunCreateIn(ctx, clientAuthNamespace, "good.yaml"); err != nil {
			t.Errorf("good.yaml: %v", err)
		}

		// A caller without a certificate fails the handshake.
		transport := &http.Transport{TLSClientConfig: trustingClientTLS()}
		defer transport.CloseIdleConnections()
		good := example(t, "good.yaml")
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+p.addr+"/validate", bytes.NewReader(review("no-cert", admissionv1.Create, good, nil)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := transport.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("a caller without a certificate got %s", resp.Status)
		}
		if !strings.Contains(err.Error(), "certificate required") {
			t.Errorf("a caller without a certificate: %v, want a certificate required alert", err)
		}
	})

	t.Run("another name", func(t *testing.T) {
		p := startWebhook(t, "--client-ca-file", caFile, "--client-allowed-names", "front-proxy")
		registerClientAuth(t, p.addr)
		// failurePolicy Fail: the refused call rejects the request. The
		// address tells this webhook from the one the API server may
		// still know from the test before.
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			msg := fmt.Sprint(dryRunCreateIn(ctx, clientAuthNamespace, "good.yaml"))
			return strings.Contains(msg, `failed calling webhook "client-auth.crdguard.dev"`) && strings.Contains(msg, p.addr) && strings.Contains(msg, "tls: bad certificate"), nil
		})
		if err != nil {
			t.Fatalf("the API server's call was not refused: %v\n%s", dryRunCreateIn(ctx, clientAuthNamespace, "good.yaml"), p.stderr)
		}
		// The server logs a failed handshake after the client has seen it.
		want := `client certificate \"kube-apiserver\": not one of --client-allowed-names`
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			return strings.Contains(p.stderr.String(), want), nil
		}); err != nil {
			t.Errorf("the webhook did not log %q:\n%s", want, p.stderr)
		}
	})

	t.Run("a name of 60 KB, again and again", func(t *testing.T) {
		p := startWebhook(t, "--client-ca-file", caFile, "--client-allowed-names", apiServerClientName)
		dir := t.TempDir()
		if err := cluster.clientCA.WriteClient(dir, strings.Repeat("n", 60<<10), time.Hour); err != nil {
			t.Fatal(err)
		}
		cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key"))
		if err != nil {
			t.Fatal(err)
		}
		cfg := trustingClientTLS()
		cfg.Certificates = []tls.Certificate{cert}
		before := len(p.stderr.String())
		refused := 0
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); refused++ {
			if conn, err := tls.Dial("tcp", p.addr, cfg); err == nil {
				// TLS 1.3: the refusal arrives with the first read.
				_, err = conn.Read(make([]byte, 1))
				conn.Close()
				if err == nil {
					t.Fatal("a certificate with a name not allowed was served")
				}
			}
		}
		time.Sleep(100 * time.Millisecond) // the server logs after the client has seen the refusal
		logged := len(p.stderr.String()) - before
		t.Logf("%d handshakes refused in 3s, %d bytes logged", refused, logged)
		if logged > 16<<10 {
			t.Errorf("%d refused handshakes logged %d bytes, want at most 16 KiB:\n%.2000s", refused, logged, p.stderr.String()[before:])
		}
	})
}

// registerClientAuth sends the MySQLClusters of clientAuthNamespace to the
// webhook at addr until the test ends.
func registerClientAuth(t *testing.T, addr string) {
	t.Helper()
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard-client-auth"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{localcluster.Webhook{
			Name: "client-auth.crdguard.dev", URL: "https://" + addr + "/validate", CABundle: cluster.ca.PEM,
			Rules: localcluster.MySQLClusters(admissionregistrationv1.Create),
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
				corev1.LabelMetadataName: clientAuthNamespace,
			}},
		}.Validating()},
	}
	if err := cluster.client.Create(t.Context(), validating); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.client.Delete(context.Background(), validating); err != nil {
			t.Errorf("deleting the configuration: %v", err)
		}
	})
}
