package webhookrules

import (
	"errors"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission/plugin/manifest"
	"k8s.io/apiserver/pkg/util/webhook"
)

// StaticConfigurationName names both static webhook configurations, with
// the suffix kube-apiserver requires of a static manifest and refuses
// through the API.
const StaticConfigurationName = "crdguard" + manifest.StaticConfigSuffix

// StaticClient is how kube-apiserver reaches the webhook from a static
// manifest, where only clientConfig.url is accepted: kube-apiserver loads
// the manifest before it serves Services, and refuses
// clientConfig.service there.
type StaticClient struct {
	// URL is the webhook's base URL, https://host[:port][/path]; the
	// webhooks call its /validate and /mutate.
	URL string
	// CABundle is the PEM bundle the webhook's serving certificate is
	// verified with; empty trusts the API server's system roots.
	CABundle []byte
}

// Validate checks URL as kube-apiserver checks a webhook's.
func (c StaticClient) Validate() error {
	if c.URL == "" {
		return errors.New("no webhook URL")
	}
	return webhook.ValidateWebhookURL(field.NewPath("url"), c.URL, true).ToAggregate()
}

// Settings every static webhook shares, as the chart's webhookCommon and
// namespaceSelector set them (without the release namespace: a static
// webhook's URL names no namespace of its own).
var (
	staticFailurePolicy = admissionregistrationv1.Fail
	staticSideEffects   = admissionregistrationv1.SideEffectClassNone
	staticMatchPolicy   = admissionregistrationv1.Equivalent
	staticTimeout       = int32(10)
	staticReinvocation  = admissionregistrationv1.NeverReinvocationPolicy
)

func staticNamespaceSelector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{metav1.NamespaceSystem}},
		{Key: "crdguard.dev/ignore", Operator: metav1.LabelSelectorOpDoesNotExist},
	}}
}

// StaticConfigurations are the ValidatingWebhookConfiguration and the
// MutatingWebhookConfiguration, named StaticConfigurationName, whose webhooks
// (validate.crdguard.dev, mutate.crdguard.dev) send what rules route to
// client. Each is nil when its rules are empty: a webhook without rules
// is refused by the API server's validation.
func StaticConfigurations(rules Rules, client StaticClient) (*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfiguration, error) {
	if err := client.Validate(); err != nil {
		return nil, nil, err
	}
	clientConfig := func(endpoint string) admissionregistrationv1.WebhookClientConfig {
		url := strings.TrimSuffix(client.URL, "/") + endpoint
		return admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: client.CABundle}
	}
	meta := metav1.ObjectMeta{Name: StaticConfigurationName, Labels: map[string]string{"app.kubernetes.io/managed-by": "crdguard"}}
	var validating *admissionregistrationv1.ValidatingWebhookConfiguration
	if len(rules.Validate) > 0 {
		validating = &admissionregistrationv1.ValidatingWebhookConfiguration{
			TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingWebhookConfiguration"},
			ObjectMeta: *meta.DeepCopy(),
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name:                    "validate.crdguard.dev",
				ClientConfig:            clientConfig("/validate"),
				Rules:                   rules.Validate,
				FailurePolicy:           &staticFailurePolicy,
				MatchPolicy:             &staticMatchPolicy,
				NamespaceSelector:       staticNamespaceSelector(),
				SideEffects:             &staticSideEffects,
				TimeoutSeconds:          &staticTimeout,
				AdmissionReviewVersions: []string{"v1"},
			}},
		}
	}
	var mutating *admissionregistrationv1.MutatingWebhookConfiguration
	if len(rules.Mutate) > 0 {
		mutating = &admissionregistrationv1.MutatingWebhookConfiguration{
			TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "MutatingWebhookConfiguration"},
			ObjectMeta: *meta.DeepCopy(),
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name:                    "mutate.crdguard.dev",
				ClientConfig:            clientConfig("/mutate"),
				Rules:                   rules.Mutate,
				FailurePolicy:           &staticFailurePolicy,
				MatchPolicy:             &staticMatchPolicy,
				NamespaceSelector:       staticNamespaceSelector(),
				SideEffects:             &staticSideEffects,
				TimeoutSeconds:          &staticTimeout,
				AdmissionReviewVersions: []string{"v1"},
				ReinvocationPolicy:      &staticReinvocation,
			}},
		}
	}
	return validating, mutating, nil
}
