package app

import (
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
)

func TestTLSModeOptions(t *testing.T) {
	checkOptions(t, []string{"--policies", examplePolicy,
		"--tls-mode", "self-signed", "--self-signed-secret", "crdguard-system/crdguard-tls",
		"--self-signed-dns-names", "crdguard.crdguard-system.svc,crdguard.crdguard-system.svc.cluster.local",
		"--self-signed-validating-configurations", "crdguard",
		"--self-signed-mutating-configurations", "crdguard,crdguard-extra",
		"--self-signed-ca-duration", "720h", "--self-signed-duration", "24h", "--self-signed-ca-overlap", "2h",
	}, func(o *Options) {
		o.Policies = []string{examplePolicy}
		o.TLSMode, o.SelfSignedSecret = "self-signed", "crdguard-system/crdguard-tls"
		o.SelfSignedDNSNames = []string{"crdguard.crdguard-system.svc", "crdguard.crdguard-system.svc.cluster.local"}
		o.SelfSignedValidatingConfigurations = []string{"crdguard"}
		o.SelfSignedMutatingConfigurations = []string{"crdguard", "crdguard-extra"}
		o.SelfSignedCADuration, o.SelfSignedDuration, o.SelfSignedCAOverlap = 720*time.Hour, 24*time.Hour, 2*time.Hour
	})

	// The default is today's: files, with a year's CA should the mode be
	// switched.
	defaults := NewOptions()
	if defaults.TLSMode != "files" || defaults.SelfSignedCADuration != 8760*time.Hour || defaults.SelfSignedDuration != 2160*time.Hour || defaults.SelfSignedCAOverlap != 24*time.Hour {
		t.Errorf("defaults: mode %s, CA %s, serving %s, overlap %s", defaults.TLSMode, defaults.SelfSignedCADuration, defaults.SelfSignedDuration, defaults.SelfSignedCAOverlap)
	}
}

func TestTLSModeInvalid(t *testing.T) {
	checkOptionsErrors(t, []string{"--policies", examplePolicy}, []optionsError{{
		name: "unknown mode",
		args: []string{"--tls-mode", "cert-manager"},
		want: `tls-mode: Unsupported value: "cert-manager": supported values: "files", "self-signed"`,
	}, {
		name: "self-signed flags without the mode",
		args: []string{"--self-signed-secret", "ns/name", "--self-signed-dns-names", "a.svc"},
		want: `tls-mode: Invalid value: "files": --self-signed-* flags need --tls-mode=self-signed`,
	}, {
		name: "nothing named",
		args: []string{"--tls-mode", "self-signed"},
		want: `[self-signed-dns-names: Required value: the serving certificate needs the Service's DNS names, ` +
			`self-signed-secret: Required value: --tls-mode=self-signed needs the Secret as namespace/name]`,
	}, {
		name: "secret without namespace",
		args: []string{"--tls-mode", "self-signed", "--self-signed-secret", "crdguard-tls", "--self-signed-dns-names", "a.svc"},
		want: `self-signed-secret: Invalid value: "crdguard-tls": must be namespace/name`,
	}, {
		name: "overlap too long for the CA",
		args: []string{"--tls-mode", "self-signed", "--self-signed-secret", "ns/tls", "--self-signed-dns-names", "a.svc",
			"--self-signed-ca-duration", "60h", "--self-signed-ca-overlap", "11h"},
		want: `self-signed-ca-overlap: Invalid value: "11h0m0s": must be at most a sixth of --self-signed-ca-duration, 10h0m0s: the old CA, renewed with a third of its life left, must outlast both overlaps`,
	}})
	// Every bad name and duration is reported, the secret's namespace and
	// name each; the names' messages end in apimachinery's long text.
	_, err := parse(t, "--policies", examplePolicy, "--tls-mode", "self-signed", "--self-signed-secret", "Crdguard/tls_secret",
		"--self-signed-dns-names", "a.svc,Not_A_Name", "--self-signed-validating-configurations", "UPPER",
		"--self-signed-mutating-configurations", "ok,-bad", "--self-signed-duration", "0s", "--self-signed-ca-duration", "-1h")
	for _, want := range []string{
		`self-signed-ca-duration: Invalid value: "-1h0m0s": must be positive, `,
		`self-signed-dns-names[1]: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain`,
		`self-signed-duration: Invalid value: "0s": must be positive, `,
		`self-signed-mutating-configurations[1]: Invalid value: "-bad": a lowercase RFC 1123 subdomain`,
		`self-signed-secret: Invalid value: "Crdguard/tls_secret": namespace: a lowercase RFC 1123 label`,
		`self-signed-secret: Invalid value: "Crdguard/tls_secret": name: a lowercase RFC 1123 subdomain`,
		`self-signed-validating-configurations[0]: Invalid value: "UPPER": a lowercase RFC 1123 subdomain`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %s", err, want)
		}
	}
}

// TestServingCertificatesFiles: in files mode a missing certificate fails
// the start, naming the file.
func TestServingCertificatesFiles(t *testing.T) {
	o := NewOptions()
	o.CertDir = t.TempDir()
	_, err := o.servingCertificates(t.Context(), &rest.Config{Host: "https://127.0.0.1:1"}, logr.Discard())
	if err == nil || !strings.HasPrefix(err.Error(), "loading the serving certificate: ") || !strings.Contains(err.Error(), "tls.crt") {
		t.Errorf("error %v, want the missing tls.crt", err)
	}
}
