package app

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/admission"
	policyconfig "k8s.io/apiserver/pkg/admission/plugin/policy/config"
	policyloader "k8s.io/apiserver/pkg/admission/plugin/policy/manifest/loader"
	webhookconfig "k8s.io/apiserver/pkg/admission/plugin/webhook/config"
	webhookloader "k8s.io/apiserver/pkg/admission/plugin/webhook/manifest/loader"
	apiserverinstall "k8s.io/apiserver/pkg/apis/apiserver/install"

	"github.com/crdguard/crdguard/internal/localca"
)

// staticManifests are the objects kube-apiserver's own loaders read from
// a --static-manifests directory, through its AdmissionConfiguration.
type staticManifests struct {
	validatingPolicies, validatingBindings []string
	mutatingPolicies, mutatingBindings     []string
	validatingWebhooks                     []*admissionregistrationv1.ValidatingWebhookConfiguration
	mutatingWebhooks                       []*admissionregistrationv1.MutatingWebhookConfiguration
}

// manifestDecoder decodes admissionregistration.k8s.io/v1 objects and
// v1 Lists, as kube-apiserver's loaders do.
func manifestDecoder(t *testing.T) runtime.Decoder {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := admissionregistrationv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	scheme.AddUnversionedTypes(metav1.SchemeGroupVersion, &metav1.List{}, &metav1.Status{})
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
}

// accept is an AcceptObjectFunc for one kind, refusing the others as
// kube-apiserver's do.
func accept[T runtime.Object](unrecognized error) func(runtime.Object) ([]T, error) {
	return func(obj runtime.Object) ([]T, error) {
		if o, ok := obj.(T); ok {
			return []T{o}, nil
		}
		if unrecognized != nil {
			return nil, unrecognized
		}
		return nil, fmt.Errorf("unsupported resource type %T", obj)
	}
}

func names[T metav1.Object](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetName()
	}
	return out
}

// loadStatic reads configFile as kube-apiserver reads
// --admission-control-config-file and each plugin's static manifests with
// the loaders of k8s.io/apiserver: names, their suffix and uniqueness,
// bindings' policies, URL-only webhooks, and the kinds each directory may
// hold. (kube-apiserver also validates each object as the API would; the
// e2e test TestStaticManifests starts one.)
func loadStatic(t *testing.T, configFile string) (staticManifests, error) {
	t.Helper()
	scheme := runtime.NewScheme()
	apiserverinstall.Install(scheme)
	plugins := []string{"ValidatingAdmissionPolicy", "MutatingAdmissionPolicy", "ValidatingAdmissionWebhook", "MutatingAdmissionWebhook"}
	provider, err := admission.ReadAdmissionConfiguration(plugins, configFile, scheme)
	if err != nil {
		return staticManifests{}, err
	}
	decoder := manifestDecoder(t)
	var out staticManifests
	for _, plugin := range plugins {
		r, err := provider.ConfigFor(plugin)
		if err != nil || r == nil {
			return out, fmt.Errorf("plugin %s: configuration %v, error %v", plugin, r, err)
		}
		var dir string
		switch plugin {
		case "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy":
			load := policyconfig.LoadValidatingConfig
			if plugin == "MutatingAdmissionPolicy" {
				load = policyconfig.LoadMutatingConfig
			}
			cfg, err := load(r)
			if err != nil {
				return out, fmt.Errorf("plugin %s: %w", plugin, err)
			}
			dir = cfg.StaticManifestsDir
		default:
			cfg, err := webhookconfig.LoadConfig(r)
			if err != nil {
				return out, fmt.Errorf("plugin %s: %w", plugin, err)
			}
			dir = cfg.StaticManifestsDir
		}
		switch plugin {
		case "ValidatingAdmissionPolicy":
			p, b, _, err := policyloader.LoadPolicyManifests(dir, decoder,
				accept[*admissionregistrationv1.ValidatingAdmissionPolicy](policyloader.ErrUnrecognizedType),
				accept[*admissionregistrationv1.ValidatingAdmissionPolicyBinding](policyloader.ErrUnrecognizedType),
				func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) string { return b.Spec.PolicyName })
			if err != nil {
				return out, err
			}
			out.validatingPolicies, out.validatingBindings = names(p), names(b)
		case "MutatingAdmissionPolicy":
			p, b, _, err := policyloader.LoadPolicyManifests(dir, decoder,
				accept[*admissionregistrationv1.MutatingAdmissionPolicy](policyloader.ErrUnrecognizedType),
				accept[*admissionregistrationv1.MutatingAdmissionPolicyBinding](policyloader.ErrUnrecognizedType),
				func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) string { return b.Spec.PolicyName })
			if err != nil {
				return out, err
			}
			out.mutatingPolicies, out.mutatingBindings = names(p), names(b)
		case "ValidatingAdmissionWebhook":
			if out.validatingWebhooks, _, err = webhookloader.LoadManifests(dir, decoder, accept[*admissionregistrationv1.ValidatingWebhookConfiguration](nil)); err != nil {
				return out, err
			}
		case "MutatingAdmissionWebhook":
			if out.mutatingWebhooks, _, err = webhookloader.LoadManifests(dir, decoder, accept[*admissionregistrationv1.MutatingWebhookConfiguration](nil)); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// TestVAPStaticManifests writes the example's static manifests and
// loads them with kube-apiserver's loaders: every compiled policy and
// binding, and webhook configurations that send the rules that stay with
// the webhook to --webhook-url, trusting --webhook-ca-bundle.
func TestVAPStaticManifests(t *testing.T) {
	dir := t.TempDir()
	ca, err := localca.New("crdguard-static-test")
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, ca.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "static")
	r := crdguard(t, "", "vap", "--policies", examplePolicy, "--crds", exampleCRD,
		"--static-manifests", out, "--webhook-url", "https://10.0.0.10:8443/", "--webhook-ca-bundle", caFile)
	if r.code != ExitOK {
		t.Fatalf("exit code = %d, want 0; stderr: %s", r.code, r.stder)
	}
	configFile := filepath.Join(out, "admission-configuration.yaml")
	wantStdout := "wrote 4 objects to " + filepath.Join(out, "validating-admission-policies", "crdguard.yaml") + "\n" +
		"wrote 2 objects to " + filepath.Join(out, "mutating-admission-policies", "crdguard.yaml") + "\n" +
		"wrote 1 objects to " + filepath.Join(out, "validating-webhooks", "crdguard.yaml") + "\n" +
		"wrote 1 objects to " + filepath.Join(out, "mutating-webhooks", "crdguard.yaml") + "\n" +
		"wrote " + configFile + ": start kube-apiserver with --admission-control-config-file=" + configFile + ", or add its plugins to your AdmissionConfiguration\n"
	if r.stdout != wantStdout {
		t.Errorf("stdout\n got: %s\nwant: %s", r.stdout, wantStdout)
	}
	got, err := loadStatic(t, configFile)
	if err != nil {
		t.Fatalf("kube-apiserver's loaders refuse the static manifests: %v", err)
	}
	wantValidating := []string{"crdguard-mysql-safety-deny.static.k8s.io", "crdguard-mysql-safety-warn.static.k8s.io"}
	if !slices.Equal(got.validatingPolicies, wantValidating) || !slices.Equal(got.validatingBindings, wantValidating) {
		t.Errorf("validating policies %q, bindings %q; want %q for both", got.validatingPolicies, got.validatingBindings, wantValidating)
	}
	wantMutating := []string{"crdguard-mysql-safety-defaults.static.k8s.io"}
	if !slices.Equal(got.mutatingPolicies, wantMutating) || !slices.Equal(got.mutatingBindings, wantMutating) {
		t.Errorf("mutating policies %q, bindings %q; want %q for both", got.mutatingPolicies, got.mutatingBindings, wantMutating)
	}
	if len(got.validatingWebhooks) != 1 || len(got.mutatingWebhooks) != 1 {
		t.Fatalf("%d validating and %d mutating webhook configurations, want 1 each", len(got.validatingWebhooks), len(got.mutatingWebhooks))
	}
	validate, mutate := got.validatingWebhooks[0], got.mutatingWebhooks[0]
	if validate.Name != "crdguard.static.k8s.io" || mutate.Name != "crdguard.static.k8s.io" {
		t.Errorf("webhook configurations %q and %q, want crdguard.static.k8s.io", validate.Name, mutate.Name)
	}
	checkWebhook := func(name, url string, cc admissionregistrationv1.WebhookClientConfig, rules []admissionregistrationv1.RuleWithOperations, ops ...admissionregistrationv1.OperationType) {
		t.Helper()
		if cc.URL == nil || *cc.URL != url || string(cc.CABundle) != string(ca.PEM) {
			t.Errorf("%s: clientConfig url %v, caBundle %d bytes; want %s and the CA", name, cc.URL, len(cc.CABundle), url)
		}
		if len(rules) != 1 || !slices.Equal(rules[0].Resources, []string{"mysqlclusters"}) || !slices.Equal(rules[0].APIGroups, []string{"db.example.io"}) || !slices.Equal(rules[0].Operations, ops) {
			t.Errorf("%s: rules %+v, want mysqlclusters of db.example.io on %v", name, rules, ops)
		}
	}
	checkWebhook("validate", "https://10.0.0.10:8443/validate", validate.Webhooks[0].ClientConfig, validate.Webhooks[0].Rules,
		admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete)
	checkWebhook("mutate", "https://10.0.0.10:8443/mutate", mutate.Webhooks[0].ClientConfig, mutate.Webhooks[0].Rules,
		admissionregistrationv1.Create, admissionregistrationv1.Update)
}

// TestVAPStaticManifestsNeedTheSuffix shows the loaders check names: the
// objects plain `crdguard vap` prints, put in the directory, are refused.
func TestVAPStaticManifestsNeedTheSuffix(t *testing.T) {
	out := filepath.Join(t.TempDir(), "static")
	if r := crdguard(t, "", "vap", "--policies", ratioPolicy, "--static-manifests", out); r.code != ExitOK {
		t.Fatalf("exit code = %d, want 0; stderr: %s", r.code, r.stder)
	}
	plain := crdguard(t, "", "vap", "--policies", ratioPolicy)
	if plain.code != ExitOK {
		t.Fatalf("exit code = %d, want 0; stderr: %s", plain.code, plain.stder)
	}
	file := filepath.Join(out, "validating-admission-policies", "crdguard.yaml")
	if err := os.WriteFile(file, []byte(plain.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, err := policyloader.LoadPolicyManifests(filepath.Dir(file), manifestDecoder(t),
		accept[*admissionregistrationv1.ValidatingAdmissionPolicy](policyloader.ErrUnrecognizedType),
		accept[*admissionregistrationv1.ValidatingAdmissionPolicyBinding](policyloader.ErrUnrecognizedType),
		func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) string { return b.Spec.PolicyName })
	want := `"crdguard-pod-resources-deny" in file "` + file + `" must have a name ending with ".static.k8s.io"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("loading unsuffixed names: error %v, want one containing %s", err, want)
	}
}

// TestVAPStaticManifestsRefusals: what --static-manifests cannot write
// correctly is exit 2, naming the flag, before anything is written.
func TestVAPStaticManifestsRefusals(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{
			name: "rules stay with the webhook and no URL",
			args: []string{"--policies", examplePolicy},
			want: "crdguard: GuardPolicies mysql-safety keep rules with the webhook (see --check): give --webhook-url, the webhook's https URL as kube-apiserver reaches it (a static manifest takes no service reference)\n",
		},
		{
			name: "http URL",
			args: []string{"--policies", examplePolicy, "--webhook-url", "http://10.0.0.10:8443"},
			want: `crdguard: --webhook-url: url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]` + "\n",
		},
		{
			name: "CA bundle without a certificate",
			args: []string{"--policies", examplePolicy, "--webhook-url", "https://10.0.0.10:8443", "--webhook-ca-bundle", notPEM},
			want: "crdguard: --webhook-ca-bundle: " + notPEM + " holds no PEM certificate\n",
		},
		{
			name: "relative node directory",
			args: []string{"--policies", ratioPolicy, "--static-manifests-node-dir", "etc/crdguard"},
			want: `crdguard: --static-manifests-node-dir: static manifests directory "etc/crdguard" is not an absolute path` + "\n",
		},
		{
			name: "with --check",
			args: []string{"--policies", ratioPolicy, "--check"},
			want: "crdguard: --check does not go with --static-manifests, which writes YAML files\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "static")
			r := crdguard(t, "", append([]string{"vap", "--static-manifests", out}, tc.args...)...)
			if r.code != ExitUsage {
				t.Errorf("exit code = %d, want %d", r.code, ExitUsage)
			}
			if !strings.HasSuffix(r.stder, tc.want) {
				t.Errorf("stderr\n got: %s\nwant it to end with: %s", r.stder, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was written (stat: %v)", out, err)
			}
		})
	}
	t.Run("webhook flags without --static-manifests", func(t *testing.T) {
		r := crdguard(t, "", "vap", "--policies", ratioPolicy, "--webhook-url", "https://10.0.0.10:8443")
		if want := "crdguard: --webhook-url needs --static-manifests\n"; r.code != ExitUsage || !strings.HasSuffix(r.stder, want) {
			t.Errorf("exit code %d, stderr %q; want %d and %q", r.code, r.stder, ExitUsage, want)
		}
	})
}

// TestVAPStaticManifestsRewrite: a second run into the same directory
// removes crdguard's files it no longer writes, which kube-apiserver
// would otherwise still load, and leaves other files alone.
func TestVAPStaticManifestsRewrite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "static")
	if r := crdguard(t, "", "vap", "--policies", examplePolicy, "--crds", exampleCRD, "--static-manifests", out, "--webhook-url", "https://10.0.0.10:8443"); r.code != ExitOK {
		t.Fatalf("exit code = %d, want 0; stderr: %s", r.code, r.stder)
	}
	other := filepath.Join(out, "validating-webhooks", "other.yaml")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := crdguard(t, "", "vap", "--policies", ratioPolicy, "--static-manifests", out); r.code != ExitOK {
		t.Fatalf("exit code = %d, want 0; stderr: %s", r.code, r.stder)
	}
	for _, dir := range []string{"mutating-admission-policies", "validating-webhooks", "mutating-webhooks"} {
		if _, err := os.Stat(filepath.Join(out, dir, "crdguard.yaml")); !os.IsNotExist(err) {
			t.Errorf("%s/crdguard.yaml is left from the first run (stat: %v)", dir, err)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another file was removed: %v", err)
	}
	got, err := loadStatic(t, filepath.Join(out, "admission-configuration.yaml"))
	if err == nil || !strings.Contains(err.Error(), "plugin MutatingAdmissionPolicy: configuration") {
		t.Errorf("the AdmissionConfiguration configures MutatingAdmissionPolicy (error %v), want only ValidatingAdmissionPolicy", err)
	}
	if want := []string{"crdguard-pod-resources-deny.static.k8s.io"}; !slices.Equal(got.validatingPolicies, want) {
		t.Errorf("validating policies %q, want %q", got.validatingPolicies, want)
	}
}
