package vap

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apiserver/pkg/admission/plugin/manifest"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

// StaticPlugin is an admission plugin of kube-apiserver that loads
// manifests at start from a directory (its configuration's
// staticManifestsDir). Each plugin's loader refuses every kind but its own
// two, so each gets a directory of its own.
type StaticPlugin struct {
	// Name is the plugin's name in the AdmissionConfiguration.
	Name string
	// Dir is its directory, relative to the static-manifests directory.
	Dir string
	// ConfigKind is the kind of its configuration in apiserver.config.k8s.io/v1.
	ConfigKind string
}

// The four plugins that read static manifests (feature gate
// ManifestBasedAdmissionControlConfig, beta and on by default in 1.37).
var (
	ValidatingPolicyPlugin  = StaticPlugin{Name: "ValidatingAdmissionPolicy", Dir: "validating-admission-policies", ConfigKind: "ValidatingAdmissionPolicyConfiguration"}
	MutatingPolicyPlugin    = StaticPlugin{Name: "MutatingAdmissionPolicy", Dir: "mutating-admission-policies", ConfigKind: "MutatingAdmissionPolicyConfiguration"}
	ValidatingWebhookPlugin = StaticPlugin{Name: "ValidatingAdmissionWebhook", Dir: "validating-webhooks", ConfigKind: "WebhookAdmissionConfiguration"}
	MutatingWebhookPlugin   = StaticPlugin{Name: "MutatingAdmissionWebhook", Dir: "mutating-webhooks", ConfigKind: "WebhookAdmissionConfiguration"}
)

// StaticName is name as kube-apiserver accepts it from a static manifest:
// with the suffix the API refuses to anyone else, so that nobody can
// create, replace or delete an object of that name through the API. An
// error says why the name is not a valid object name (over 253
// characters).
func StaticName(name string) (string, error) {
	static := name + manifest.StaticConfigSuffix
	if errs := utilvalidation.IsDNS1123Subdomain(static); len(errs) > 0 {
		return "", fmt.Errorf("static manifest name %q: %s", static, strings.Join(errs, "; "))
	}
	return static, nil
}

// Static is c with every policy and binding renamed by StaticName, each
// binding naming its renamed policy, for a static-manifests directory. c
// is left as it is. Labels and annotations stay: the loader checks names
// only, and they still trace each object to its GuardPolicy.
func (c *Compiled) Static() (*Compiled, error) {
	out := &Compiled{Policy: c.Policy, Rules: c.Rules}
	rename := func(meta *metav1.ObjectMeta, policyName *string) error {
		name, err := StaticName(meta.Name)
		if err != nil {
			return fmt.Errorf("GuardPolicy %s: %w", c.Policy, err)
		}
		meta.Name = name
		if policyName != nil {
			if *policyName, err = StaticName(*policyName); err != nil {
				return fmt.Errorf("GuardPolicy %s: %w", c.Policy, err)
			}
		}
		return nil
	}
	for i := range c.Policies {
		p, b := c.Policies[i].DeepCopy(), c.Bindings[i].DeepCopy()
		if err := rename(&p.ObjectMeta, nil); err != nil {
			return nil, err
		}
		if err := rename(&b.ObjectMeta, &b.Spec.PolicyName); err != nil {
			return nil, err
		}
		out.Policies, out.Bindings = append(out.Policies, p), append(out.Bindings, b)
	}
	if c.Mutating != nil {
		out.Mutating, out.MutatingBinding = c.Mutating.DeepCopy(), c.MutatingBinding.DeepCopy()
		if err := rename(&out.Mutating.ObjectMeta, nil); err != nil {
			return nil, err
		}
		if err := rename(&out.MutatingBinding.ObjectMeta, &out.MutatingBinding.Spec.PolicyName); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AdmissionConfiguration is the AdmissionConfiguration that points each
// of plugins at its directory under dir, the static-manifests directory
// as kube-apiserver sees it (an absolute path). Its configuration replaces
// any other of the same plugin: a cluster that configures one already
// (a webhook kubeConfigFile) merges the two.
func AdmissionConfiguration(dir string, plugins ...StaticPlugin) (*apiserverv1.AdmissionConfiguration, error) {
	if !path.IsAbs(dir) {
		// kube-apiserver refuses a relative staticManifestsDir.
		return nil, fmt.Errorf("static manifests directory %q is not an absolute path", dir)
	}
	out := &apiserverv1.AdmissionConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: apiserverv1.SchemeGroupVersion.String(), Kind: "AdmissionConfiguration"},
		Plugins:  []apiserverv1.AdmissionPluginConfiguration{},
	}
	for _, p := range plugins {
		raw, err := json.Marshal(map[string]string{
			"apiVersion":         apiserverv1.SchemeGroupVersion.String(),
			"kind":               p.ConfigKind,
			"staticManifestsDir": path.Join(dir, p.Dir),
		})
		if err != nil {
			return nil, err
		}
		out.Plugins = append(out.Plugins, apiserverv1.AdmissionPluginConfiguration{
			Name:          p.Name,
			Configuration: &runtime.Unknown{Raw: raw, ContentType: runtime.ContentTypeJSON},
		})
	}
	return out, nil
}
