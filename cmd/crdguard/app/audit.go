package app

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/audit"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema"
)

type auditOptions struct {
	kubeconfig    string
	context       string
	namespace     string
	allNamespaces bool
	crds          []string
	policies      []string
	qps           float32
	reportOptions
}

func newAuditCommand(streams Streams) *cobra.Command {
	o := &auditOptions{qps: 20}
	cmd := &cobra.Command{
		Use:   "audit [flags]",
		Short: "Evaluate the objects already in a cluster against its CRDs and GuardPolicies",
		Long: `Lists the objects every GuardPolicy matches in a live cluster (paged, at a bounded
request rate) and evaluates each as an UPDATE of itself, so transition rules and
ratcheting behave as they will on the object's next edit. Policies and CRDs come
from the cluster unless --policies or --crds name files.`,
		Example: `  crdguard audit -A
  crdguard audit -n shop --policies examples/mysql/policy.yaml -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), streams)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	f.StringVar(&o.context, "context", "", "the kubeconfig context to use")
	f.StringVarP(&o.namespace, "namespace", "n", "", "audit only this namespace (default: the context's namespace)")
	f.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "audit every namespace")
	f.StringArrayVar(&o.crds, "crds", nil, "CRD file or directory (repeatable); default: the cluster's CRDs")
	f.StringArrayVar(&o.policies, "policies", nil, "GuardPolicy file or directory (repeatable); default: the cluster's GuardPolicies")
	f.Float32Var(&o.qps, "qps", o.qps, "most requests per second to the API server")
	o.addReportFlags(f, streams, "text output: print only objects with findings")
	return cmd
}

func (o *auditOptions) run(ctx context.Context, streams Streams) error {
	loading := clientcmd.NewDefaultClientConfigLoadingRules()
	loading.ExplicitPath = o.kubeconfig
	clientConfig := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, &clientcmd.ConfigOverrides{CurrentContext: o.context})
	config, err := clientConfig.ClientConfig()
	if err != nil {
		return usageError("kubeconfig: %v", err)
	}
	config.QPS, config.Burst = o.qps, int(o.qps*2)
	config.WarningHandler = newServerWarnings(streams.Err)
	namespace := o.namespace
	if namespace == "" && !o.allNamespaces {
		if namespace, _, err = clientConfig.Namespace(); err != nil {
			return usageError("kubeconfig: %v", err)
		}
	}
	if o.allNamespaces {
		namespace = ""
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return usageError("kubeconfig: %v", err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return usageError("kubeconfig: %v", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))

	crds, registry, err := o.loadSchemas(ctx, streams, client)
	if err != nil {
		return err
	}
	guardPolicies, err := o.loadPolicies(ctx, streams, client, registry)
	if err != nil {
		return err
	}
	engine, err := policies.NewEngine(registry, guardPolicies...)
	if err != nil {
		return inputError(err)
	}
	targets, skipped, err := audit.Targets(guardPolicies, audit.StorageVersions(crds), mapper)
	if err != nil {
		return unreadableCluster(err)
	}
	for _, s := range skipped {
		fmt.Fprintf(streams.Err, "crdguard: warning: %s\n", s)
	}
	var results []report.Result
	lister := &audit.Lister{Client: client}
	err = lister.Audit(ctx, engine, targets, namespace, func(t audit.Target, obj *unstructured.Unstructured, out policies.Result, err error) error {
		results = append(results, auditResult(t, obj, out, err))
		return nil
	})
	if err != nil {
		return unreadableCluster(err)
	}
	rep := report.New(results)
	if err := o.writeReport(streams, "audit", rep); err != nil {
		return err
	}
	return verdictExit(rep.Summary)
}

// unreadableCluster is a cluster that could not be read: unreachable, or
// refusing a list. The cluster is the audit's input, so this is exit 2 as
// an unreadable file is, never a clean run: an audit that listed nothing
// because it could not list has checked nothing.
func unreadableCluster(err error) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf("cannot read the cluster: %w", err)}
}

// loadSchemas reads CRDs from files or, by default, from the cluster. The
// cluster's CRDs were validated when they were written; they are indexed
// as they are.
func (o *auditOptions) loadSchemas(ctx context.Context, streams Streams, client dynamic.Interface) ([]*apiextensionsv1.CustomResourceDefinition, *schema.Registry, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	if len(o.crds) > 0 {
		var err error
		if crds, err = (policies.Files{CRDs: o.crds, Stdin: streams.In}).LoadCRDs(ctx); err != nil {
			return nil, nil, inputError(err)
		}
	} else {
		list, err := client.Resource(apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, nil, unreadableCluster(fmt.Errorf("listing CRDs (--crds reads files instead): %w", err))
		}
		for i := range list.Items {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, crd); err != nil {
				return nil, nil, &exitError{code: ExitInternal, err: fmt.Errorf("CRD %s: %w", list.Items[i].GetName(), err)}
			}
			crds = append(crds, crd)
		}
	}
	registry, err := schema.NewRegistry(crds...)
	if err != nil {
		return nil, nil, inputError(err)
	}
	return crds, registry, nil
}

// loadPolicies reads GuardPolicies from files or, by default, from the
// cluster; either way they are validated and compiled the same way.
func (o *auditOptions) loadPolicies(ctx context.Context, streams Streams, client dynamic.Interface, registry *schema.Registry) ([]*v1alpha1.GuardPolicy, error) {
	if len(o.policies) > 0 {
		guardPolicies, err := policies.Files{Policies: o.policies, Stdin: streams.In}.LoadPolicies(ctx, registry)
		if err != nil {
			return nil, inputError(err)
		}
		return guardPolicies, nil
	}
	list, err := client.Resource(v1alpha1.GroupVersion.WithResource("guardpolicies")).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, unreadableCluster(fmt.Errorf("listing GuardPolicies (is the GuardPolicy CRD installed? --policies reads files instead): %w", err))
	}
	docs := make([]manifest.Document, len(list.Items))
	for i := range list.Items {
		docs[i] = manifest.Document{Source: "cluster", Index: i, Object: &list.Items[i]}
	}
	guardPolicies, err := policies.PoliciesFromDocuments(ctx, docs, registry)
	if err != nil {
		return nil, inputError(err)
	}
	return guardPolicies, nil
}

// auditResult is the report result of a stored object, audited as an
// UPDATE of itself.
func auditResult(t audit.Target, obj *unstructured.Unstructured, out policies.Result, err error) report.Result {
	res := report.Result{
		Source:     "cluster:" + t.Resource.Resource + "." + t.Resource.Group,
		APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(),
		Operation: string(v1alpha1.Update),
		NotStream: true,
	}
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Violations, res.Warnings = out.Violations, out.Warnings
	return res
}
