package webhook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/localcluster"
)

const managedConfiguration = "crdguard-managed"

// sizedCRD is a namespaced CRD of e2e.example.io whose kind has a
// spec.size.
func sizedCRD(t *testing.T, kind string) *unstructured.Unstructured {
	t.Helper()
	return fromYAML(t, fmt.Sprintf(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[2]ss.e2e.example.io}
spec:
  group: e2e.example.io
  scope: Namespaced
  names: {kind: %[1]s, plural: %[2]ss, singular: %[2]s, listKind: %[1]sList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`, kind, strings.ToLower(kind)))
}

// smallPolicy is the GuardPolicy small-KINDs, whose rule small denies a
// sized kind's spec.size over 3, followed by moreRules.
func smallPolicy(t *testing.T, kind, moreRules string) *unstructured.Unstructured {
	t.Helper()
	return fromYAML(t, fmt.Sprintf(`
apiVersion: crdguard.dev/v1alpha1
kind: GuardPolicy
metadata: {name: small-%[2]ss}
spec:
  match:
    resources:
    - {group: e2e.example.io, kinds: [%[1]s]}
  rules:
  - name: small
    cel:
      expression: "request.operation == 'DELETE' || object.spec.size <= 3"
      message: %[2]ss are at most 3 big
      fieldPath: spec.size
%[3]s`, kind, strings.ToLower(kind), moreRules))
}

func fromYAML(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestManagedRules runs a second webhook with --manage-webhook-rules on
// configurations of its own whose policy webhooks start without rules: a
// GuardPolicy for a kind nothing routed is enforced without touching the
// configuration, and deleting it takes the kind out again.
func TestManagedRules(t *testing.T) {
	ctx := t.Context()
	ports, err := localcluster.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	if err := createManagedConfigurations(ctx, fmt.Sprintf("https://%s:%d", localhost, ports[0])); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, obj := range []client.Object{
			&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: managedConfiguration}},
			&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: managedConfiguration}},
		} {
			if err := cluster.client.Delete(context.Background(), obj); err != nil {
				t.Errorf("deleting %s: %v", obj.GetName(), err)
			}
		}
	})
	startSecondWebhook(t, "the managing webhook", ports, nil,
		"--manage-webhook-rules", "--webhook-configuration="+managedConfiguration, "--leader-election-namespace=default")
	// Ready means written: the shared policies' kind is routed already.
	if rules := managedValidateRules(t); !routesResource(rules, "db.example.io", "mysqlclusters") {
		t.Fatalf("ready before the rules were written: %+v", rules)
	}

	crd := sizedCRD(t, "Gadget")
	createForTest(t, crd)
	if err := localcluster.EnsureNamespace(ctx, cluster.client, "managed-rules", nil); err != nil {
		t.Fatal(err)
	}
	big := fromYAML(t, "apiVersion: e2e.example.io/v1\nkind: Gadget\nmetadata: {name: big, namespace: managed-rules}\nspec: {size: 5}\n")
	eventually(t, "the Gadget CRD is served", func(ctx context.Context) (bool, string) {
		err := dryRunCreate(ctx, big)
		return err == nil, errString(err)
	})

	policy := smallPolicy(t, "Gadget", "")
	createForTest(t, policy)
	eventually(t, "a big Gadget is denied", func(ctx context.Context) (bool, string) {
		err := dryRunCreate(ctx, big)
		return apierrors.IsInvalid(err), errString(err)
	})
	rules := managedValidateRules(t)
	all := admissionregistrationv1.AllScopes
	want := admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"e2e.example.io"}, APIVersions: []string{"*"}, Resources: []string{"gadgets"}, Scope: &all},
	}
	if !slices.ContainsFunc(rules, func(r admissionregistrationv1.RuleWithOperations) bool {
		return apiequality.Semantic.DeepEqual(r, want)
	}) {
		t.Errorf("validate.crdguard.dev rules %+v have no %+v", rules, want)
	}

	if err := cluster.client.Delete(ctx, policy); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Gadget rule is removed", func(context.Context) (bool, string) {
		rules := managedValidateRules(t)
		return !routesResource(rules, "e2e.example.io", "gadgets"), fmt.Sprintf("%+v", rules)
	})
	eventually(t, "a big Gadget is admitted", func(ctx context.Context) (bool, string) {
		err := dryRunCreate(ctx, big)
		return err == nil, errString(err)
	})
}

func managedValidateRules(t *testing.T) []admissionregistrationv1.RuleWithOperations {
	t.Helper()
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := cluster.client.Get(t.Context(), client.ObjectKey{Name: managedConfiguration}, c); err != nil {
		t.Fatal(err)
	}
	for _, w := range c.Webhooks {
		if w.Name == validatingName {
			return w.Rules
		}
	}
	t.Fatalf("%s has no webhook %s", managedConfiguration, validatingName)
	return nil
}

func routesResource(rules []admissionregistrationv1.RuleWithOperations, group, resource string) bool {
	return slices.ContainsFunc(rules, func(r admissionregistrationv1.RuleWithOperations) bool {
		return slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource)
	})
}

// createManagedConfigurations creates the two configurations as the chart
// renders them with webhook.manageRules: the policy webhooks, no rules.
func createManagedConfigurations(ctx context.Context, url string) error {
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: managedConfiguration},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			localcluster.Webhook{Name: validatingName, URL: url + "/validate", CABundle: cluster.ca.PEM}.Validating(),
		},
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: managedConfiguration},
		Webhooks: []admissionregistrationv1.MutatingWebhook{
			localcluster.Webhook{Name: mutatingName, URL: url + "/mutate", CABundle: cluster.ca.PEM}.Mutating(),
		},
	}
	if err := cluster.client.Create(ctx, validating); err != nil {
		return err
	}
	return cluster.client.Create(ctx, mutating)
}
