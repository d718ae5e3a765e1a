package localcluster

import (
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// NewEnvironment is a kube-apiserver and etcd from assets (the
// KUBEBUILDER_ASSETS directory) that installs the CRDs at crdPaths on
// start, a missing path being an error. Its Scheme has the built-in types
// and CRDs, for typed clients. Timeouts are generous: the machines these
// run on are small and busy.
func NewEnvironment(assets string, crdPaths ...string) *envtest.Environment {
	scheme := runtime.NewScheme()
	// Adding registered Go types to a new scheme cannot fail.
	_ = clientgoscheme.AddToScheme(scheme)
	_ = apiextensionsv1.AddToScheme(scheme)
	return &envtest.Environment{
		Scheme:                   scheme,
		BinaryAssetsDirectory:    assets,
		ErrorIfCRDPathMissing:    true,
		CRDDirectoryPaths:        crdPaths,
		CRDInstallOptions:        envtest.CRDInstallOptions{PollInterval: 100 * time.Millisecond, MaxTime: time.Minute},
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
}
