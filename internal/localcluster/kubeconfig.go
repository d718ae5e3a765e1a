package localcluster

import (
	"os"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// WriteKubeconfig adds a user with groups to env (a client certificate
// signed by its CA) and writes a kubeconfig for it to path, for kubectl
// and crdguard's own binaries.
func WriteKubeconfig(env *envtest.Environment, path, user string, groups ...string) error {
	added, err := env.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		return err
	}
	kubeconfig, err := added.KubeConfig()
	if err != nil {
		return err
	}
	return os.WriteFile(path, kubeconfig, 0o600)
}
