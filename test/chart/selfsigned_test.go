package chart

import (
	"bytes"
	"context"
	"crypto/x509"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"

	webhookapp "github.com/crdguard/crdguard/cmd/crdguard-webhook/app"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/selfsigned"
)

// selfSignedSet is tls.mode selfSigned with a guarded kind, so both
// webhook configurations are rendered.
var selfSignedSet = append([]string{"tls.mode=selfSigned"}, mysqlKind...)

// mysqlKind guards the example's MySQLClusters.
var mysqlKind = []string{
	"webhook.rules[0].apiGroups={db.example.io}",
	"webhook.rules[0].apiVersions={*}",
	"webhook.rules[0].resources={mysqlclusters}",
}

// checkSelfSignedTLS checks what tls.mode selfSigned renders for release r
// instead of cert-manager's objects: the flags that make the webhook issue
// its certificate, no Secret volume, configurations without cert-manager's
// annotation or a caBundle (helm template cannot look the Secret up), and
// RBAC for exactly the Secret and the configurations.
func checkSelfSignedTLS(t *testing.T, r *rendered, opts *webhookapp.Options) {
	t.Helper()
	for _, o := range r.objs {
		if strings.HasPrefix(o.GetAPIVersion(), "cert-manager.io/") {
			t.Errorf("%s %s rendered with tls.mode selfSigned", o.GetKind(), o.GetName())
		}
	}
	pod := r.deployment(t).Spec.Template.Spec
	if len(pod.Volumes) != 0 || len(pod.Containers[0].VolumeMounts) != 0 {
		t.Errorf("volumes %v, mounts %v; the certificate is served from memory", pod.Volumes, pod.Containers[0].VolumeMounts)
	}
	svc := r.service(t, "r-crdguard")
	mutating := r.get("MutatingWebhookConfiguration", "r-crdguard") != nil
	want := &webhookapp.Options{
		TLSMode:                            webhookapp.TLSModeSelfSigned,
		SelfSignedSecret:                   releaseNamespace + "/r-crdguard-self-signed-tls",
		SelfSignedDNSNames:                 []string{svc.Name + "." + svc.Namespace + ".svc", svc.Name + "." + svc.Namespace + ".svc.cluster.local"},
		SelfSignedValidatingConfigurations: []string{"r-crdguard"},
	}
	if mutating {
		want.SelfSignedMutatingConfigurations = []string{"r-crdguard"}
	}
	if opts.TLSMode != want.TLSMode || opts.SelfSignedSecret != want.SelfSignedSecret ||
		!slices.Equal(opts.SelfSignedDNSNames, want.SelfSignedDNSNames) ||
		!slices.Equal(opts.SelfSignedValidatingConfigurations, want.SelfSignedValidatingConfigurations) ||
		!slices.Equal(opts.SelfSignedMutatingConfigurations, want.SelfSignedMutatingConfigurations) {
		t.Errorf("self-signed flags: mode %s, secret %s, DNS names %v, configurations %v %v; want %s, %s, %v, %v %v",
			opts.TLSMode, opts.SelfSignedSecret, opts.SelfSignedDNSNames, opts.SelfSignedValidatingConfigurations, opts.SelfSignedMutatingConfigurations,
			want.TLSMode, want.SelfSignedSecret, want.SelfSignedDNSNames, want.SelfSignedValidatingConfigurations, want.SelfSignedMutatingConfigurations)
	}

	vwc := r.validating(t)
	annotations := []map[string]string{vwc.Annotations}
	var bundles [][]byte
	for _, w := range vwc.Webhooks {
		bundles = append(bundles, w.ClientConfig.CABundle)
	}
	if mutating {
		mwc := r.mutating(t)
		annotations = append(annotations, mwc.Annotations)
		for _, w := range mwc.Webhooks {
			bundles = append(bundles, w.ClientConfig.CABundle)
		}
	}
	for _, a := range annotations {
		if _, ok := a["cert-manager.io/inject-ca-from"]; ok {
			t.Errorf("cert-manager.io/inject-ca-from with tls.mode selfSigned: %v", a)
		}
	}
	for i, b := range bundles {
		if len(b) != 0 {
			t.Errorf("webhook %d has a caBundle under helm template", i)
		}
	}

	checkSelfSignedRBAC(t, r, "r-crdguard", mutating)
}

// checkSelfSignedRBAC checks the Role and ClusterRole of tls.mode
// selfSigned, rule by rule, and their bindings to the ServiceAccount.
func checkSelfSignedRBAC(t *testing.T, r *rendered, fullname string, mutating bool) {
	t.Helper()
	secret := fullname + "-self-signed-tls"
	named := []string{"get", "list", "watch", "update"}
	role := &rbacv1.Role{}
	r.typed(t, "Role", fullname+"-self-signed", role)
	wantRole := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{secret}, Verbs: named},
	}
	if !equalRules(role.Rules, wantRole) {
		t.Errorf("Role rules %+v, want %+v", role.Rules, wantRole)
	}
	clusterRole := &rbacv1.ClusterRole{}
	r.typed(t, "ClusterRole", fullname+"-self-signed", clusterRole)
	wantCluster := []rbacv1.PolicyRule{
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"}, ResourceNames: []string{fullname}, Verbs: named},
	}
	if mutating {
		wantCluster = append(wantCluster, rbacv1.PolicyRule{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"}, ResourceNames: []string{fullname}, Verbs: named})
	}
	if !equalRules(clusterRole.Rules, wantCluster) {
		t.Errorf("ClusterRole rules %+v, want %+v", clusterRole.Rules, wantCluster)
	}
	roleBinding, clusterRoleBinding := &rbacv1.RoleBinding{}, &rbacv1.ClusterRoleBinding{}
	r.typed(t, "RoleBinding", fullname+"-self-signed", roleBinding)
	r.typed(t, "ClusterRoleBinding", fullname+"-self-signed", clusterRoleBinding)
	sa := rbacv1.Subject{Kind: "ServiceAccount", Name: fullname, Namespace: releaseNamespace}
	if roleBinding.RoleRef.Name != role.Name || !slices.Equal(roleBinding.Subjects, []rbacv1.Subject{sa}) {
		t.Errorf("RoleBinding %+v %+v", roleBinding.RoleRef, roleBinding.Subjects)
	}
	if clusterRoleBinding.RoleRef.Name != clusterRole.Name || !slices.Equal(clusterRoleBinding.Subjects, []rbacv1.Subject{sa}) {
		t.Errorf("ClusterRoleBinding %+v %+v", clusterRoleBinding.RoleRef, clusterRoleBinding.Subjects)
	}
}

func equalRules(got, want []rbacv1.PolicyRule) bool {
	return slices.EqualFunc(got, want, func(a, b rbacv1.PolicyRule) bool {
		return slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources) &&
			slices.Equal(a.ResourceNames, b.ResourceNames) && slices.Equal(a.Verbs, b.Verbs) && len(a.NonResourceURLs) == 0
	})
}

// TestSelfSignedNoMutating: with static rules and no guarded kinds no
// MutatingWebhookConfiguration is rendered, and none is named or granted.
func TestSelfSignedNoMutating(t *testing.T) {
	r := render(t, "tls.mode=selfSigned", "webhook.manageRules=false")
	if r.get("MutatingWebhookConfiguration", "r-crdguard") != nil {
		t.Fatal("a MutatingWebhookConfiguration without guarded kinds")
	}
	checkCommon(t, r)
	if args := r.args(t); slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--self-signed-mutating-configurations") }) {
		t.Errorf("args %v name a MutatingWebhookConfiguration that is not rendered", args)
	}
	dryRunCreate(t, r)
}

// selfSignedSecret is the Secret of the default release in selfSigned mode.
const selfSignedSecret = defaultRelease + "-self-signed-tls"

// TestSelfSignedRBAC creates the chart's ServiceAccount and self-signed
// RBAC on the API server, asks it with kubectl auth can-i as the
// ServiceAccount what the webhook may and may not do, and then runs the
// certificate manager as that ServiceAccount with the rendered flags: it
// creates the Secret, watches it (a forced renewal is seen at once) and
// injects its CA into the rendered configurations.
func TestSelfSignedRBAC(t *testing.T) {
	// Static rules: the patch of the managed rules is not the self-signed
	// mode's (TestManagedRulesRBAC).
	r := renderChart(t, defaultRelease, append([]string{"webhook.failurePolicy=Ignore", "webhook.manageRules=false"}, selfSignedSet...)...)
	kinds := []string{"ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"}
	applyRendered(t, r, kinds...)
	t.Cleanup(func() { deleteRendered(t, r, kinds...) })

	secretRef := func(name string) string { return "secrets/" + name }
	vwc := "validatingwebhookconfigurations.admissionregistration.k8s.io/" + defaultRelease
	mwc := "mutatingwebhookconfigurations.admissionregistration.k8s.io/" + defaultRelease
	yes := []access{
		{"create", "secrets", "-n", releaseNamespace},
		{"get", secretRef(selfSignedSecret), "-n", releaseNamespace}, {"list", secretRef(selfSignedSecret), "-n", releaseNamespace},
		{"watch", secretRef(selfSignedSecret), "-n", releaseNamespace}, {"update", secretRef(selfSignedSecret), "-n", releaseNamespace},
		{"get", vwc}, {"list", vwc}, {"watch", vwc}, {"update", vwc},
		{"get", mwc}, {"list", mwc}, {"watch", mwc}, {"update", mwc},
	}
	no := []access{
		{"get", "secrets", "-n", releaseNamespace}, {"list", "secrets", "-n", releaseNamespace}, {"watch", "secrets", "-n", releaseNamespace},
		{"get", secretRef("other"), "-n", releaseNamespace}, {"update", secretRef("other"), "-n", releaseNamespace},
		{"delete", secretRef(selfSignedSecret), "-n", releaseNamespace}, {"patch", secretRef(selfSignedSecret), "-n", releaseNamespace},
		{"get", secretRef(selfSignedSecret), "-n", "default"}, {"create", "secrets", "-n", "default"},
		{"update", "validatingwebhookconfigurations.admissionregistration.k8s.io"}, {"list", "validatingwebhookconfigurations.admissionregistration.k8s.io"},
		{"update", "validatingwebhookconfigurations.admissionregistration.k8s.io/other"}, {"update", "mutatingwebhookconfigurations.admissionregistration.k8s.io/other"},
		{"create", "validatingwebhookconfigurations.admissionregistration.k8s.io"}, {"delete", vwc}, {"patch", vwc}, {"delete", mwc},
	}
	waitAllowed(t, yes[1])
	checkAccess(t, "the webhook needs it", yes, no)

	// The manager, as the ServiceAccount, configured by the rendered flags.
	applyRendered(t, r, "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
	t.Cleanup(func() { deleteRendered(t, r, "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration") })
	admin := clientset(t, "")
	t.Cleanup(func() {
		_ = admin.CoreV1().Secrets(releaseNamespace).Delete(context.Background(), selfSignedSecret, metav1.DeleteOptions{})
	})
	opts := webhookapp.NewOptions()
	fs := pflag.NewFlagSet("crdguard-webhook", pflag.ContinueOnError)
	opts.AddFlags(fs)
	if err := fs.Parse(r.containerArgs(t, defaultRelease)); err != nil {
		t.Fatal(err)
	}
	namespace, name, _ := strings.Cut(opts.SelfSignedSecret, "/")
	m, err := selfsigned.New(t.Context(), clientset(t, serviceAccountUser), selfsigned.Config{
		Namespace: namespace, Name: name, DNSNames: opts.SelfSignedDNSNames,
		ValidatingWebhookConfigurations: opts.SelfSignedValidatingConfigurations,
		MutatingWebhookConfigurations:   opts.SelfSignedMutatingConfigurations,
		CADuration:                      opts.SelfSignedCADuration, Duration: opts.SelfSignedDuration, Overlap: opts.SelfSignedCAOverlap,
		// Far beyond the test: only the watch can make it see the renewal.
		Resync: time.Hour,
	}, testr.New(t))
	if err != nil {
		t.Fatalf("the manager as %s: %v", serviceAccountUser, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	secret, err := admin.CoreV1().Secrets(releaseNamespace).Get(t.Context(), selfSignedSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the Secret the manager created: %v", err)
	}
	bundle := secret.Data["ca.crt"]
	localcluster.WaitFor(t, time.Minute, "both configurations trust the webhook's CA", func(ctx context.Context) (bool, error) {
		v, err := admin.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, defaultRelease, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		m, err := admin.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, defaultRelease, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		ok := bytes.Equal(m.Webhooks[0].ClientConfig.CABundle, bundle)
		for _, w := range v.Webhooks {
			ok = ok && bytes.Equal(w.ClientConfig.CABundle, bundle)
		}
		return ok, nil
	})
	first := firstCert(t, secret.Data["tls.crt"])
	patch := []byte(`{"metadata":{"annotations":{"` + selfsigned.AnnotationRenew + `":"` + selfsigned.RenewServing + `"}}}`)
	if _, err := admin.CoreV1().Secrets(releaseNamespace).Patch(t.Context(), selfSignedSecret, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	localcluster.WaitFor(t, time.Minute, "the watched Secret's renewal is done and served", func(ctx context.Context) (bool, error) {
		c, err := m.GetCertificate(nil)
		return err == nil && !c.Leaf.Equal(first), err
	})
}

// TestSelfSignedCABundleLookup: helm upgrade renders every webhook with
// the CA bundle the webhook published in its Secret (Helm's lookup), so an
// upgrade never resets it; the webhook re-injects it anyway should it be.
func TestSelfSignedCABundleLookup(t *testing.T) {
	ca, _, err := certutil.GenerateSelfSignedCertKey("crdguard-test-ca", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	admin := clientset(t, "")
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: releaseNamespace, Name: "r-crdguard-self-signed-tls"},
		Data:       map[string][]byte{"ca.crt": ca},
	}
	if _, err := admin.CoreV1().Secrets(releaseNamespace).Create(t.Context(), secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admin.CoreV1().Secrets(releaseNamespace).Delete(context.Background(), secret.Name, metav1.DeleteOptions{})
	})

	args := append([]string{"template", "r", env.chart, "-n", releaseNamespace, "--dry-run=server", "--kubeconfig", env.kubeconfig}, setArgs(selfSignedSet)...)
	out, errOut, err := helm(t.Context(), args...)
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	r := decodeRendered(t, "helm template --dry-run=server", out)
	var n int
	for _, w := range r.validating(t).Webhooks {
		n++
		if !bytes.Equal(w.ClientConfig.CABundle, ca) {
			t.Errorf("%s: caBundle %q, want the Secret's ca.crt", w.Name, w.ClientConfig.CABundle)
		}
	}
	for _, w := range r.mutating(t).Webhooks {
		n++
		if !bytes.Equal(w.ClientConfig.CABundle, ca) {
			t.Errorf("%s: caBundle %q, want the Secret's ca.crt", w.Name, w.ClientConfig.CABundle)
		}
	}
	if n != 3 {
		t.Errorf("%d webhooks rendered, want validate-policy, validate and mutate", n)
	}
	dryRunCreate(t, r)
}

// clientset is a clientset of the test cluster's admin, impersonating user
// unless it is empty.
func clientset(t *testing.T, user string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Impersonate.UserName = user
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// containerArgs are the webhook's args in the Deployment of release.
func (r *rendered) containerArgs(t *testing.T, release string) []string {
	t.Helper()
	d := &appsv1.Deployment{}
	r.typed(t, "Deployment", release, d)
	return d.Spec.Template.Spec.Containers[0].Args
}

func firstCert(t *testing.T, pem []byte) *x509.Certificate {
	t.Helper()
	certs, err := certutil.ParseCertsPEM(pem)
	if err != nil {
		t.Fatal(err)
	}
	return certs[0]
}

func setArgs(set []string) []string {
	var args []string
	for _, s := range set {
		args = append(args, "--set", s)
	}
	return args
}
