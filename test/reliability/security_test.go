package reliability

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestTLSVersions: TLS 1.0 and 1.1 handshakes are refused (RFC 8996
// deprecates them); 1.2 and 1.3 succeed.
func TestTLSVersions(t *testing.T) {
	for _, tt := range []struct {
		name    string
		version uint16
		ok      bool
	}{
		{"TLS 1.0", tls.VersionTLS10, false},
		{"TLS 1.1", tls.VersionTLS11, false},
		{"TLS 1.2", tls.VersionTLS12, true},
		{"TLS 1.3", tls.VersionTLS13, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := trustingClientTLS()
			cfg.MinVersion, cfg.MaxVersion = tt.version, tt.version
			conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", cluster.webhookAddr, cfg)
			if err == nil {
				defer conn.Close()
			}
			switch {
			case tt.ok && err != nil:
				t.Errorf("handshake failed: %v", err)
			case !tt.ok && err == nil:
				t.Errorf("handshake succeeded at %s", tls.VersionName(conn.ConnectionState().Version))
			case !tt.ok && !strings.Contains(err.Error(), "protocol version"):
				t.Errorf("handshake failed with %v, want a protocol version alert", err)
			}
		})
	}
}

// TestHTTP2 offers HTTP/2 by ALPN: the webhook negotiates HTTP/1.1 unless
// started with --enable-http2, and then serves reviews over HTTP/2.
func TestHTTP2(t *testing.T) {
	if got := negotiate(t, cluster.webhookAddr); got != "http/1.1" {
		t.Errorf("by default: negotiated %q, want http/1.1", got)
	}
	p := startWebhook(t, "--enable-http2")
	if got := negotiate(t, p.addr); got != "h2" {
		t.Errorf("with --enable-http2: negotiated %q, want h2", got)
	}
	good := example(t, "good.yaml")
	transport := &http.Transport{TLSClientConfig: trustingClientTLS(), ForceAttemptHTTP2: true}
	defer transport.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "https://"+p.addr+"/validate", bytes.NewReader(review("h2", admissionv1.Create, good, nil)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := transport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK {
		t.Errorf("a review over HTTP/2: %s %s, want HTTP/2.0 200", resp.Proto, resp.Status)
	}
}

// negotiate handshakes offering h2 and HTTP/1.1, as Go's and most HTTP
// clients do, and returns the protocol the server chose.
func negotiate(t *testing.T, addr string) string {
	t.Helper()
	cfg := trustingClientTLS()
	cfg.NextProtos = []string{"h2", "http/1.1"}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().NegotiatedProtocol
}

// secret is what no log line may ever contain: it stands for a password
// in an object and for the data of a Secret.
const secret = "s3cr3t-0f-the-reliability-test"

// TestLogsKeepSecrets runs the binary at the default log level and sends
// it objects that carry a secret: denied, allowed, a Secret, and reviews
// it cannot decode. Neither the secret nor its base64 form appears in its
// logs, although the decisions are logged.
func TestLogsKeepSecrets(t *testing.T) {
	p := startWebhook(t)
	c, transport := webhookClient(1)
	defer transport.CloseIdleConnections()

	// The secret in an annotation and, for the denied object, in a field
	// the schema does not declare (one more reason to deny it).
	withSecret := func(name string, inSpec bool) *unstructured.Unstructured {
		obj := example(t, name)
		obj.SetAnnotations(map[string]string{"example.io/password": secret})
		if inSpec {
			if err := unstructured.SetNestedField(obj.Object, secret, "spec", "rootPassword"); err != nil {
				t.Fatal(err)
			}
		}
		return obj
	}
	denied, allowed := withSecret("unsafe.yaml", true), withSecret("good.yaml", false)
	secretObject := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "db", "namespace": shopNamespace},
		"data":       map[string]any{"password": base64.StdEncoding.EncodeToString([]byte(secret))},
		"stringData": map[string]any{"password": secret},
	}}
	noKind := withSecret("good.yaml", true)
	delete(noKind.Object, "kind")

	reviews := map[string][]byte{
		"denied":                   review("logs", admissionv1.Create, denied, nil),
		"allowed":                  review("logs", admissionv1.Create, allowed, nil),
		"allowed update":           review("logs", admissionv1.Update, allowed, denied),
		"denied delete":            review("logs", admissionv1.Delete, nil, withSecret("delete/ephemeral.yaml", true)),
		"Secret":                   review("logs", admissionv1.Create, secretObject, nil),
		"Secret update":            review("logs", admissionv1.Update, secretObject, secretObject),
		"object without kind":      review("logs", admissionv1.Create, noKind, nil),
		"update without oldObject": review("logs", admissionv1.Update, denied, nil),
	}
	for name, body := range reviews {
		for _, path := range []string{"/validate", "/mutate"} {
			a, err := post(t.Context(), c, p.addr, path, "application/json", bytes.NewReader(body))
			if err != nil || a.status != http.StatusOK {
				t.Errorf("%s to %s: %v %v", name, path, a, err)
			}
		}
	}
	p.signal(t, syscall.SIGTERM)
	if code := p.wait(t, exitMargin); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	logs := p.stderr.String()
	if !strings.Contains(logs, `"msg":"Denied"`) || !strings.Contains(logs, `"level":"error"`) {
		t.Fatalf("the logs hold no denial or no error: not the logs of these requests?\n%s", logs)
	}
	for _, form := range []string{secret, base64.StdEncoding.EncodeToString([]byte(secret))} {
		if i := strings.Index(logs, form); i >= 0 {
			start := strings.LastIndex(logs[:i], "\n") + 1
			end := i + strings.Index(logs[i:], "\n")
			t.Errorf("the logs contain %q:\n%s", form, logs[start:end])
		}
	}
}
