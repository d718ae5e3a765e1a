package chart

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// defaultRelease is the release name whose objects config/default names
// like the chart does: every name is "crdguard" or starts with it.
const defaultRelease = "crdguard"

// kustomizeOnly are what config/default renders and the chart does not:
// the namespace, which `helm install --create-namespace` creates instead.
var kustomizeOnly = sets.New("Namespace " + releaseNamespace)

// kustomizations are the kustomize directories and the chart values each
// must render the same objects as.
var kustomizations = []struct {
	dir string
	set []string
}{
	{"config/default", nil},
	{"config/samples/mysql", mysqlRules},
}

// TestKustomizeMatchesChart: each kustomization and the chart agree on
// every object and on what wires them together, so the two install paths
// cannot drift apart. `make verify` runs it.
func TestKustomizeMatchesChart(t *testing.T) {
	for _, k := range kustomizations {
		t.Run(k.dir, func(t *testing.T) {
			got := wiring(t, renderKustomize(t, filepath.Join(env.root, k.dir)))
			want := wiring(t, renderChart(t, defaultRelease, k.set...))
			for _, fact := range sets.List(got.Difference(want)) {
				if !kustomizeOnly.Has(fact) {
					t.Errorf("%s renders %s; the chart does not", k.dir, fact)
				}
			}
			for _, fact := range sets.List(want.Difference(got)) {
				t.Errorf("the chart renders %s; %s does not", fact, k.dir)
			}
			for _, fact := range sets.List(kustomizeOnly.Difference(got)) {
				t.Errorf("%s does not render %s", k.dir, fact)
			}
		})
	}
}

// TestKustomizeDryRun creates each kustomization on the API server without
// storing it (apply: the namespace and the CRDs exist already).
func TestKustomizeDryRun(t *testing.T) {
	for _, k := range kustomizations {
		t.Run(k.dir, func(t *testing.T) {
			dir := filepath.Join(env.root, k.dir)
			cmd := kubectl(t.Context(), "apply", "--dry-run=server", "--validate=strict", "-o", "name", "-k", dir)
			// stdout only: kubectl warns on stderr that the existing
			// namespace and CRDs were not created by apply.
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("kubectl apply --dry-run=server -k %s: %v\n%s%s", k.dir, err, out, stderr.String())
			}
			r := renderKustomize(t, dir)
			if got := strings.Count(strings.TrimSpace(string(out)), "\n") + 1; got != len(r.objs) {
				t.Errorf("kubectl applied %d objects, kustomize rendered %d:\n%s", got, len(r.objs), out)
			}
		})
	}
}

// wiring lists, one fact a string, what must agree between two renders:
// every object's kind, namespace and name; Service ports and targetPorts;
// the containers' images, args and ports; each webhook's Service, port and
// path, settings, rules and selectors, and its CA source; the
// certificates' names, issuers and Secrets; the RBAC rules and subjects.
// Labels and comments may differ.
func wiring(t *testing.T, r *rendered) sets.Set[string] {
	t.Helper()
	facts := sets.New[string]()
	add := func(format string, args ...any) { facts.Insert(fmt.Sprintf(format, args...)) }
	for _, o := range r.objs {
		id := o.GetKind() + " " + o.GetName()
		if ns := o.GetNamespace(); ns != "" {
			id = o.GetKind() + " " + ns + "/" + o.GetName()
		}
		add("%s", id)
		switch o.GetKind() {
		case "Service":
			svc := &corev1.Service{}
			convert(t, o, svc)
			for _, p := range svc.Spec.Ports {
				add("%s port %s %d -> %s/%s", id, p.Name, p.Port, p.TargetPort.String(), p.Protocol)
			}
		case "Deployment":
			d := &appsv1.Deployment{}
			convert(t, o, d)
			pod := d.Spec.Template.Spec
			add("%s serviceAccountName %s", id, pod.ServiceAccountName)
			for _, c := range pod.Containers {
				add("%s container %s image %s", id, c.Name, c.Image)
				add("%s container %s args %s", id, c.Name, strings.Join(c.Args, " "))
				for _, p := range c.Ports {
					add("%s container %s port %s %d/%s", id, c.Name, p.Name, p.ContainerPort, p.Protocol)
				}
				for _, m := range c.VolumeMounts {
					add("%s container %s mounts %s at %s", id, c.Name, m.Name, m.MountPath)
				}
			}
			for _, v := range pod.Volumes {
				if v.Secret != nil {
					add("%s volume %s Secret %s", id, v.Name, v.Secret.SecretName)
				}
			}
		case "ValidatingWebhookConfiguration":
			c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			convert(t, o, c)
			add("%s inject-ca-from %s", id, c.Annotations["cert-manager.io/inject-ca-from"])
			for _, w := range c.Webhooks {
				webhookFacts(add, id+" webhook "+w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy, w.SideEffects,
					w.TimeoutSeconds, w.AdmissionReviewVersions, w.NamespaceSelector, w.ObjectSelector)
			}
		case "MutatingWebhookConfiguration":
			c := &admissionregistrationv1.MutatingWebhookConfiguration{}
			convert(t, o, c)
			add("%s inject-ca-from %s", id, c.Annotations["cert-manager.io/inject-ca-from"])
			for _, w := range c.Webhooks {
				webhookFacts(add, id+" webhook "+w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy, w.SideEffects,
					w.TimeoutSeconds, w.AdmissionReviewVersions, w.NamespaceSelector, w.ObjectSelector)
				add("%s webhook %s reinvocationPolicy %s", id, w.Name, deref(w.ReinvocationPolicy))
			}
		case "Certificate":
			c := &cmv1.Certificate{}
			convert(t, o, c)
			add("%s dnsNames %s", id, strings.Join(c.Spec.DNSNames, ","))
			add("%s issuer %s %s", id, c.Spec.IssuerRef.Kind, c.Spec.IssuerRef.Name)
			add("%s secretName %s isCA %t", id, c.Spec.SecretName, c.Spec.IsCA)
		case "Issuer":
			iss := &cmv1.Issuer{}
			convert(t, o, iss)
			switch {
			case iss.Spec.SelfSigned != nil:
				add("%s selfSigned", id)
			case iss.Spec.CA != nil:
				add("%s ca secretName %s", id, iss.Spec.CA.SecretName)
			}
		case "ClusterRole":
			cr := &rbacv1.ClusterRole{}
			convert(t, o, cr)
			for _, rule := range cr.Rules {
				add("%s rule apiGroups=%q resources=%q verbs=%q", id, rule.APIGroups, rule.Resources, rule.Verbs)
			}
		case "ClusterRoleBinding":
			b := &rbacv1.ClusterRoleBinding{}
			convert(t, o, b)
			add("%s roleRef %s %s", id, b.RoleRef.Kind, b.RoleRef.Name)
			for _, s := range b.Subjects {
				add("%s subject %s %s/%s", id, s.Kind, s.Namespace, s.Name)
			}
		}
	}
	return facts
}

// webhookFacts are what decides where a webhook is called and for what.
func webhookFacts(add func(string, ...any), id string, cc admissionregistrationv1.WebhookClientConfig, rules []admissionregistrationv1.RuleWithOperations,
	failurePolicy *admissionregistrationv1.FailurePolicyType, matchPolicy *admissionregistrationv1.MatchPolicyType, sideEffects *admissionregistrationv1.SideEffectClass,
	timeout *int32, reviewVersions []string, namespaceSelector, objectSelector *metav1.LabelSelector) {
	add("%s %s", id, clientConfig(cc))
	add("%s failurePolicy %s matchPolicy %s sideEffects %s timeoutSeconds %d admissionReviewVersions %q",
		id, deref(failurePolicy), deref(matchPolicy), deref(sideEffects), deref(timeout), reviewVersions)
	for _, r := range rules {
		add("%s rule apiGroups=%q apiVersions=%q resources=%q operations=%q scope=%s", id, r.APIGroups, r.APIVersions, r.Resources, r.Operations, deref(r.Scope))
	}
	add("%s namespaceSelector %s", id, selector(namespaceSelector))
	add("%s objectSelector %s", id, selector(objectSelector))
}

// selector prints a label selector in kubectl's syntax; nil and empty
// select everything alike, as the API server defaults them.
func selector(ls *metav1.LabelSelector) string {
	if ls == nil {
		return "everything"
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	switch {
	case err != nil:
		return "invalid: " + err.Error()
	case sel.Empty():
		return "everything"
	}
	return sel.String()
}

func clientConfig(c admissionregistrationv1.WebhookClientConfig) string {
	if s := c.Service; s != nil {
		return fmt.Sprintf("service %s/%s:%d%s", s.Namespace, s.Name, deref(s.Port), deref(s.Path))
	}
	return "url " + deref(c.URL)
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// renderChart renders the chart as release into releaseNamespace, with its
// CRD, as `helm install` would create it.
func renderChart(t *testing.T, release string, set ...string) *rendered {
	t.Helper()
	args := []string{"template", release, env.chart, "-n", releaseNamespace, "--include-crds"}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	out, errOut, err := helm(t.Context(), args...)
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return decodeRendered(t, "helm "+strings.Join(args, " "), out)
}

// renderKustomize renders dir with the real kubectl's kustomize.
func renderKustomize(t *testing.T, dir string) *rendered {
	t.Helper()
	cmd := kubectl(t.Context(), "kustomize", dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, stderr.String())
	}
	return decodeRendered(t, "kubectl kustomize "+dir, string(out))
}

// decodeRendered splits a multi-document render into objects.
func decodeRendered(t *testing.T, what, yaml string) *rendered {
	t.Helper()
	r := &rendered{yaml: yaml}
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(yaml), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding the output of %s: %v", what, err)
		}
		if m != nil {
			r.objs = append(r.objs, &unstructured.Unstructured{Object: m})
		}
	}
	return r
}

// convert converts o into out, rejecting unknown fields.
func convert(t *testing.T, o *unstructured.Unstructured, out any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, out, true); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

// byKind returns the rendered objects of kind, in render order.
func (r *rendered) byKind(kind string) []*unstructured.Unstructured {
	return slices.DeleteFunc(slices.Clone(r.objs), func(o *unstructured.Unstructured) bool { return o.GetKind() != kind })
}
