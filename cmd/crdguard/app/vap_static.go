package app

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/policies/vap"
	"github.com/crdguard/crdguard/pkg/schema"
	"github.com/crdguard/crdguard/pkg/webhookrules"
)

// Files --static-manifests writes: one in each plugin's directory, which
// may hold other manifests too, and the AdmissionConfiguration beside them.
const (
	staticManifestFile     = "crdguard.yaml"
	admissionConfiguration = "admission-configuration.yaml"
)

// staticOptions are the flags of vap --static-manifests.
type staticOptions struct {
	// dir is where to write; "" writes no static manifests.
	dir string
	// nodeDir is dir's path on the control-plane nodes, for the
	// AdmissionConfiguration; "" is dir's absolute path.
	nodeDir string
	// webhookURL is the webhook's base URL, required when rules stay
	// with the webhook.
	webhookURL string
	// webhookCABundle is a PEM file that verifies the webhook's
	// certificate; "" trusts the API server's system roots.
	webhookCABundle string
}

// staticPluginObjects are the objects of one plugin's directory.
type staticPluginObjects struct {
	plugin  vap.StaticPlugin
	objects []runtime.Object
}

// write writes the compiled policies and the webhook
// configurations of the rules that stay with the webhook, in the form
// kube-apiserver loads from a staticManifestsDir, one directory per
// plugin, and the AdmissionConfiguration that points the plugins at them;
// it lists what it wrote on out.
func (o staticOptions) write(out io.Writer, registry *schema.Registry, gps []*v1alpha1.GuardPolicy, compiled []*vap.Compiled) error {
	var validating, mutating []runtime.Object
	for _, c := range compiled {
		static, err := c.Static()
		if err != nil {
			return inputError(err)
		}
		if static.Mutating != nil {
			mutating = append(mutating, static.Mutating, static.MutatingBinding)
		}
		for i := range static.Policies {
			validating = append(validating, static.Policies[i], static.Bindings[i])
		}
	}
	webhooks, err := o.webhookConfigurations(registry, gps, compiled)
	if err != nil {
		return err
	}
	dirs := []staticPluginObjects{
		{vap.ValidatingPolicyPlugin, validating},
		{vap.MutatingPolicyPlugin, mutating},
		webhooks[0],
		webhooks[1],
	}
	nodeDir := o.nodeDir
	if nodeDir == "" {
		if nodeDir, err = filepath.Abs(o.dir); err != nil {
			return inputError(fmt.Errorf("--static-manifests: %w", err))
		}
	}
	var plugins []vap.StaticPlugin
	for _, d := range dirs {
		if len(d.objects) > 0 {
			plugins = append(plugins, d.plugin)
		}
	}
	if len(plugins) == 0 {
		return inputError(errors.New("--static-manifests: the GuardPolicies compile to nothing"))
	}
	config, err := vap.AdmissionConfiguration(nodeDir, plugins...)
	if err != nil {
		return inputError(fmt.Errorf("--static-manifests-node-dir: %w", err))
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return inputError(fmt.Errorf("--static-manifests: %w", err))
	}
	for _, d := range dirs {
		if err := writeStaticDir(out, filepath.Join(o.dir, d.plugin.Dir), d.objects); err != nil {
			return err
		}
	}
	configFile := filepath.Join(o.dir, admissionConfiguration)
	if err := writeObjectsFile(configFile, "--static-manifests", []runtime.Object{config}); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s: start kube-apiserver with --admission-control-config-file=%s, or add its plugins to your AdmissionConfiguration\n",
		configFile, filepath.Join(nodeDir, admissionConfiguration))
	return nil
}

// webhookConfigurations are the webhook configurations of the rules that
// stay with the webhook, routed by the same rules webhook-config
// computes, for the GuardPolicies reduced to those rules.
func (o staticOptions) webhookConfigurations(registry *schema.Registry, gps []*v1alpha1.GuardPolicy, compiled []*vap.Compiled) ([2]staticPluginObjects, error) {
	out := [2]staticPluginObjects{{plugin: vap.ValidatingWebhookPlugin}, {plugin: vap.MutatingWebhookPlugin}}
	// The flags are checked whether or not a rule needs them.
	client := webhookrules.StaticClient{URL: o.webhookURL}
	if o.webhookURL != "" {
		if err := client.Validate(); err != nil {
			return out, inputError(fmt.Errorf("--webhook-url: %w", err))
		}
	}
	if o.webhookCABundle != "" {
		var err error
		if client.CABundle, err = readCABundle(o.webhookCABundle); err != nil {
			return out, inputError(fmt.Errorf("--webhook-ca-bundle: %w", err))
		}
	}
	var kept []*v1alpha1.GuardPolicy
	var names []string
	for i, gp := range gps {
		if k := compiled[i].WebhookPolicy(gp); k != nil {
			kept = append(kept, k)
			names = append(names, gp.Name)
		}
	}
	if len(kept) == 0 {
		return out, nil
	}
	if o.webhookURL == "" {
		// Fail closed: leaving them out would leave their rules unenforced.
		return out, usageError("GuardPolicies %s keep rules with the webhook (see --check): give --webhook-url, the webhook's https URL as kube-apiserver reaches it (a static manifest takes no service reference)", strings.Join(names, ", "))
	}
	engine, err := policies.NewEngine(registry, kept...)
	if err != nil {
		return out, &exitError{code: ExitInternal, err: fmt.Errorf("loading the rules that stay with the webhook: %w", err)}
	}
	rules, err := webhookrules.Compute(engine.Routes(), webhookrules.OfflineMapper(registry))
	if err != nil {
		return out, inputError(err)
	}
	validating, mutating, err := webhookrules.StaticConfigurations(rules, client)
	if err != nil {
		return out, &exitError{code: ExitInternal, err: err}
	}
	if validating != nil {
		out[0].objects = []runtime.Object{validating}
	}
	if mutating != nil {
		out[1].objects = []runtime.Object{mutating}
	}
	return out, nil
}

// readCABundle reads a PEM bundle that holds at least one certificate.
func readCABundle(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return data, nil
}

// writeStaticDir writes objects to crdguard's file in dir, or, with no
// objects, removes the file an earlier run wrote: kube-apiserver would
// load it still.
func writeStaticDir(out io.Writer, dir string, objects []runtime.Object) error {
	file := filepath.Join(dir, staticManifestFile)
	if len(objects) == 0 {
		if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return inputError(fmt.Errorf("--static-manifests: %w", err))
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return inputError(fmt.Errorf("--static-manifests: %w", err))
	}
	if err := writeObjectsFile(file, "--static-manifests", objects); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %d objects to %s\n", len(objects), file)
	return nil
}
