package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/internal/hacktools"
	"github.com/crdguard/crdguard/internal/localca"
	"github.com/crdguard/crdguard/internal/localcluster"
)

// An environment is what the families share: the work directory, the
// binaries built once, one kube-apiserver and the servers under test, each
// started on first use and stopped by close.
type environment struct {
	o    options
	root string // repository root
	work string
	log  io.Writer

	ca      *localca.CA
	caPool  *x509.CertPool
	certDir string // tls.crt and tls.key for 127.0.0.1

	binaries map[string]string // package -> built binary
	servers  map[string]*server

	control    *envtest.Environment
	restConfig *rest.Config
	kubeconfig string // admin, for the webhook's manager
	scheme     *runtime.Scheme

	stopOnce sync.Once
}

func newEnvironment(o options, log io.Writer) (*environment, error) {
	work, err := os.MkdirTemp("", "crdguard-bench-")
	if err != nil {
		return nil, err
	}
	env := &environment{o: o, root: corpus.RepositoryRoot(), work: work, log: log, binaries: map[string]string{}, servers: map[string]*server{}}
	env.certDir = filepath.Join(work, "certs")
	if env.ca, err = localca.NewServing("crdguard-bench-ca", env.certDir); err != nil {
		return nil, err
	}
	env.caPool = x509.NewCertPool()
	env.caPool.AppendCertsFromPEM(env.ca.PEM)
	return env, nil
}

// binary builds the main package pkg (relative to the repository) once.
func (env *environment) binary(pkg string) (string, error) {
	if path, ok := env.binaries[pkg]; ok {
		return path, nil
	}
	path := filepath.Join(env.work, "bin", filepath.Base(pkg))
	fmt.Fprintf(env.log, "building %s ...\n", pkg)
	if err := command(env.root, "go", "build", "-trimpath", "-o", path, pkg).Run(); err != nil {
		return "", fmt.Errorf("building %s: %w", pkg, err)
	}
	env.binaries[pkg] = path
	return path, nil
}

// cluster starts kube-apiserver and etcd (envtest) with the example CRD
// installed, once.
func (env *environment) cluster() (*rest.Config, error) {
	if env.restConfig != nil {
		return env.restConfig, nil
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		var err error
		if assets, err = hacktools.Path(context.Background(), "envtest", os.Stderr); err != nil {
			return nil, err
		}
	}
	fmt.Fprintln(env.log, "starting kube-apiserver and etcd ...")
	env.control = localcluster.NewEnvironment(assets, filepath.Join(env.root, "examples", "mysql", "crd.yaml"))
	env.scheme = env.control.Scheme
	cfg, err := env.control.Start()
	if err != nil {
		return nil, fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	env.kubeconfig = filepath.Join(env.work, "admin.kubeconfig")
	if err := localcluster.WriteKubeconfig(env.control, env.kubeconfig, "admin", "system:masters"); err != nil {
		return nil, err
	}
	// Every request is timed, none throttled.
	cfg.QPS, cfg.Burst = -1, 0
	env.restConfig = cfg
	return cfg, nil
}

// close stops every server and the control plane and removes the work
// directory (unless -keep).
func (env *environment) close() {
	env.stopOnce.Do(func() {
		for _, s := range env.servers {
			s.stop()
		}
		if env.control != nil {
			if err := env.control.Stop(); err != nil {
				fmt.Fprintln(env.log, "stopping the control plane:", err)
			}
		}
		if env.o.keep {
			fmt.Fprintln(env.log, "work directory:", env.work)
		} else {
			os.RemoveAll(env.work)
		}
	})
}

// wait polls ready every 50ms until it reports true or timeout passes.
func wait(ctx context.Context, timeout time.Duration, ready func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		ok, err := ready()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
			}
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
