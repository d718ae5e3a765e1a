package webhookrules

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// TestStaticConfigurations: each webhook calls its endpoint under the
// base URL, and a configuration without rules is left out.
func TestStaticConfigurations(t *testing.T) {
	rules := Rules{Validate: []admissionregistrationv1.RuleWithOperations{rule([]string{"db.example.io"}, []string{"*"}, []string{"mysqlclusters"}, create)}}
	for _, base := range []string{"https://webhook.example:8443/crdguard", "https://webhook.example:8443/crdguard/"} {
		validating, mutating, err := StaticConfigurations(rules, StaticClient{URL: base})
		if err != nil {
			t.Fatal(err)
		}
		if got := *validating.Webhooks[0].ClientConfig.URL; got != "https://webhook.example:8443/crdguard/validate" {
			t.Errorf("base %s: url %s, want https://webhook.example:8443/crdguard/validate", base, got)
		}
		if validating.Name != "crdguard.static.k8s.io" || validating.Webhooks[0].ClientConfig.Service != nil {
			t.Errorf("configuration %q with service %v, want crdguard.static.k8s.io and none", validating.Name, validating.Webhooks[0].ClientConfig.Service)
		}
		if mutating != nil {
			t.Errorf("a mutating configuration without rules: %+v", mutating)
		}
	}
}

// TestStaticClientValidate refuses what kube-apiserver refuses in a
// webhook URL.
func TestStaticClientValidate(t *testing.T) {
	tests := map[string]string{
		"":                                  "no webhook URL",
		"http://10.0.0.1":                   `url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
		"https://10.0.0.1/?x=1":             `url: Invalid value: "x=1": query parameters are not permitted in the URL`,
		"https://user@10.0.0.1/":            `url: Invalid value: "user": user information is not permitted in the URL`,
		"https:///validate":                 `url: Invalid value: "": host must be specified; desired format: https://host[/path]`,
		"https://10.0.0.1:8443/crdguard#id": `url: Invalid value: "id": fragments are not permitted in the URL`,
	}
	for url, want := range tests {
		err := StaticClient{URL: url}.Validate()
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", url, err, want)
		}
	}
	if err := (StaticClient{URL: "https://10.0.0.1:8443"}).Validate(); err != nil {
		t.Errorf("a valid URL: %v", err)
	}
}
