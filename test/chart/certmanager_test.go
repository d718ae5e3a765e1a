package chart

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestCertManagerTypes decodes the rendered Issuers and Certificates into
// cert-manager's own Go types with unknown fields rejected, and checks the
// serving certificate names the webhook Service the configurations call,
// for chart renders and config/default.
func TestCertManagerTypes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		render func(t *testing.T) *rendered
	}{
		{"chart defaults", func(t *testing.T) *rendered { return renderChart(t, defaultRelease) }},
		{"chart guarded kinds", func(t *testing.T) *rendered { return renderChart(t, "r", guarded...) }},
		{"chart fullnameOverride", func(t *testing.T) *rendered {
			return renderChart(t, "r", "fullnameOverride=guard", "tls.certManager.duration=720h", "tls.certManager.renewBefore=240h")
		}},
		{"kustomize config/default", func(t *testing.T) *rendered {
			return renderKustomize(t, filepath.Join(env.root, "config", "default"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkCertManagerTypes(t, tc.render(t))
		})
	}
}

// The control: strict decoding rejects a field cert-manager does not have.
func TestCertManagerTypesRejectUnknownFields(t *testing.T) {
	r := renderChart(t, defaultRelease)
	cert := r.get("Certificate", "crdguard-serving")
	if cert == nil {
		t.Fatal("no Certificate crdguard-serving")
	}
	bad := cert.DeepCopy()
	if err := unstructured.SetNestedField(bad.Object, "8760h", "spec", "renewBeforeDuration"); err != nil {
		t.Fatal(err)
	}
	var c cmv1.Certificate
	err := decodeStrict(bad, &c)
	if err == nil || !strings.Contains(err.Error(), `json: unknown field "renewBeforeDuration"`) {
		t.Errorf("strict decoding of a Certificate with spec.renewBeforeDuration: %v, want an unknown field error", err)
	}
}

func checkCertManagerTypes(t *testing.T, r *rendered) {
	t.Helper()
	issuers := map[string]*cmv1.Issuer{}
	for _, o := range r.byKind("Issuer") {
		iss := &cmv1.Issuer{}
		if err := decodeStrict(o, iss); err != nil {
			t.Fatalf("Issuer %s: %v", o.GetName(), err)
		}
		issuers[iss.Name] = iss
	}
	var ca, serving *cmv1.Certificate
	for _, o := range r.byKind("Certificate") {
		c := &cmv1.Certificate{}
		if err := decodeStrict(o, c); err != nil {
			t.Fatalf("Certificate %s: %v", o.GetName(), err)
		}
		if c.Spec.IsCA {
			ca = c
		} else {
			serving = c
		}
	}
	if len(issuers) != 2 || ca == nil || serving == nil || len(r.byKind("Certificate")) != 2 {
		t.Fatalf("%d Issuers and %d Certificates rendered, want 2 Issuers, a CA and a serving Certificate", len(issuers), len(r.byKind("Certificate")))
	}

	// The chain: a self-signed Issuer signs the CA, whose Secret the CA
	// Issuer signs the serving certificate with.
	if iss := issuers[ca.Spec.IssuerRef.Name]; iss == nil || iss.Spec.SelfSigned == nil || ca.Spec.IssuerRef.Kind != "Issuer" {
		t.Errorf("CA Certificate %s is issued by %s %s, want the self-signed Issuer", ca.Name, ca.Spec.IssuerRef.Kind, ca.Spec.IssuerRef.Name)
	}
	if iss := issuers[serving.Spec.IssuerRef.Name]; iss == nil || iss.Spec.CA == nil || iss.Spec.CA.SecretName != ca.Spec.SecretName || serving.Spec.IssuerRef.Kind != "Issuer" {
		t.Errorf("serving Certificate %s is issued by %s %s, want the CA Issuer reading Secret %s", serving.Name, serving.Spec.IssuerRef.Kind, serving.Spec.IssuerRef.Name, ca.Spec.SecretName)
	}

	// The names: the Service every webhook calls, in both DNS forms.
	var services []admissionregistrationv1.ServiceReference
	vwc := r.byKind("ValidatingWebhookConfiguration")
	if len(vwc) != 1 {
		t.Fatalf("%d ValidatingWebhookConfigurations rendered, want 1", len(vwc))
	}
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	convert(t, vwc[0], c)
	for _, w := range c.Webhooks {
		services = append(services, *w.ClientConfig.Service)
	}
	if want := serving.Namespace + "/" + serving.Name; c.Annotations["cert-manager.io/inject-ca-from"] != want {
		t.Errorf("cert-manager.io/inject-ca-from %q, want %q", c.Annotations["cert-manager.io/inject-ca-from"], want)
	}
	for _, o := range r.byKind("MutatingWebhookConfiguration") {
		m := &admissionregistrationv1.MutatingWebhookConfiguration{}
		convert(t, o, m)
		for _, w := range m.Webhooks {
			services = append(services, *w.ClientConfig.Service)
		}
	}
	svc := services[0]
	for _, s := range services[1:] {
		if s.Name != svc.Name || s.Namespace != svc.Namespace {
			t.Errorf("webhooks call Services %s/%s and %s/%s", svc.Namespace, svc.Name, s.Namespace, s.Name)
		}
	}
	if r.get("Service", svc.Name) == nil {
		t.Errorf("the webhooks call Service %s, which is not rendered", svc.Name)
	}
	want := []string{svc.Name + "." + svc.Namespace + ".svc", svc.Name + "." + svc.Namespace + ".svc.cluster.local"}
	if !slices.Equal(serving.Spec.DNSNames, want) {
		t.Errorf("serving Certificate dnsNames %v, want %v", serving.Spec.DNSNames, want)
	}
	if serving.Namespace != svc.Namespace {
		t.Errorf("serving Certificate in namespace %s, the Service in %s", serving.Namespace, svc.Namespace)
	}
}

// decodeStrict decodes o into out as cert-manager's JSON, rejecting fields
// out's type does not have.
func decodeStrict(o *unstructured.Unstructured, out any) error {
	b, err := o.MarshalJSON()
	if err != nil {
		return err
	}
	return yaml.UnmarshalStrict(b, out)
}
