package localcluster

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Webhook is one of crdguard's endpoints as the tests, the benchmarks and
// the demo register it, with the settings the chart renders: no side
// effects (dry-run requests reach only such webhooks), failurePolicy Fail
// (when crdguard cannot decide, nothing gets in), AdmissionReview v1 and a
// ten-second timeout.
type Webhook struct {
	Name string
	// URL is the endpoint's: https://127.0.0.1:PORT/validate.
	URL string
	// CABundle verifies the serving certificate; nil trusts the API
	// server's system roots.
	CABundle []byte
	Rules    []admissionregistrationv1.RuleWithOperations

	NamespaceSelector, ObjectSelector *metav1.LabelSelector
}

// Validating is w in a ValidatingWebhookConfiguration.
func (w Webhook) Validating() admissionregistrationv1.ValidatingWebhook {
	return admissionregistrationv1.ValidatingWebhook{
		Name:                    w.Name,
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To(w.URL), CABundle: w.CABundle},
		Rules:                   w.Rules,
		NamespaceSelector:       w.NamespaceSelector,
		ObjectSelector:          w.ObjectSelector,
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
		AdmissionReviewVersions: []string{"v1"},
		TimeoutSeconds:          ptr.To[int32](10),
	}
}

// Mutating is w in a MutatingWebhookConfiguration.
func (w Webhook) Mutating() admissionregistrationv1.MutatingWebhook {
	v := w.Validating()
	return admissionregistrationv1.MutatingWebhook{
		Name:                    v.Name,
		ClientConfig:            v.ClientConfig,
		Rules:                   v.Rules,
		NamespaceSelector:       v.NamespaceSelector,
		ObjectSelector:          v.ObjectSelector,
		SideEffects:             v.SideEffects,
		FailurePolicy:           v.FailurePolicy,
		AdmissionReviewVersions: v.AdmissionReviewVersions,
		TimeoutSeconds:          v.TimeoutSeconds,
	}
}

// Rule sends ops on resource of group, in every version and with scope,
// to a webhook.
func Rule(group, resource string, scope admissionregistrationv1.ScopeType, ops ...admissionregistrationv1.OperationType) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: []string{resource},
			Scope: ptr.To(scope),
		},
	}
}

// MySQLClusters sends ops on the example's MySQLClusters to a webhook.
func MySQLClusters(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{Rule("db.example.io", "mysqlclusters", admissionregistrationv1.NamespacedScope, ops...)}
}
