package webhook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// notEmpty warns about a sized kind's empty objects.
const notEmpty = `  - name: not-empty
    enforcement: Warn
    cel:
      expression: "request.operation == 'DELETE' || object.spec.size != 0"
      message: an empty one holds nothing
      fieldPath: spec.size
`

// TestReviewsOverHTTP2: kube-apiserver calls a webhook started with
// --enable-http2 over HTTP/2, and reads its answers, which carry no
// Content-Type: a denial's causes, a warning and an allowed object arrive
// as over HTTP/1.1.
func TestReviewsOverHTTP2(t *testing.T) {
	ctx := t.Context()
	crd := sizedCRD(t, "Cog")
	createForTest(t, crd)
	policy := smallPolicy(t, "Cog", notEmpty)
	createForTest(t, policy)

	ports, err := localcluster.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	// http2debug=1 logs each HTTP/2 connection the server accepts.
	logs := startSecondWebhook(t, "the HTTP/2 webhook", ports, []string{"GODEBUG=http2debug=1"}, "--enable-http2")
	configuration := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard-http2"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{localcluster.Webhook{
			Name: "validate-http2.crdguard.dev", URL: fmt.Sprintf("https://%s:%d/validate", localhost, ports[0]), CABundle: cluster.ca.PEM,
			Rules: []admissionregistrationv1.RuleWithOperations{localcluster.Rule("e2e.example.io", "cogs", admissionregistrationv1.NamespacedScope, admissionregistrationv1.Create)},
		}.Validating()},
	}
	createForTest(t, configuration)
	if err := localcluster.EnsureNamespace(ctx, cluster.client, "http2-reviews", nil); err != nil {
		t.Fatal(err)
	}

	big := fromYAML(t, "apiVersion: e2e.example.io/v1\nkind: Cog\nmetadata: {name: big, namespace: http2-reviews}\nspec: {size: 5}\n")
	var denial error
	eventually(t, "a big Cog is denied", func(ctx context.Context) (bool, string) {
		denial = dryRunCreate(ctx, big)
		return denial != nil && strings.Contains(denial.Error(), "validate-http2.crdguard.dev"), errString(denial)
	})
	if got, want := causes(t, denial), []string{"spec.size: [small-cogs/small] Invalid value: 5: cogs are at most 3 big"}; !slices.Equal(got, want) {
		t.Errorf("causes of a big Cog:\n got %q\nwant %q", got, want)
	}
	if out := runKubectl(t, "admin", "create", "--dry-run=server", "-f", writeObject(t, fromYAML(t, "apiVersion: e2e.example.io/v1\nkind: Cog\nmetadata: {name: empty, namespace: http2-reviews}\nspec: {size: 0}\n"))); !out.ok || !strings.Contains(out.stderr, "Warning: [small-cogs/not-empty] spec.size: Invalid value: 0: an empty one holds nothing") {
		t.Errorf("an empty Cog: %s", out)
	}
	if !strings.Contains(logs.String(), "http2: server connection from") {
		t.Error("the webhook accepted no HTTP/2 connection")
	}
}
