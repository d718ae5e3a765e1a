package localsuite

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Setup is what a suite's setup works with, and what it leaves to be
// undone when the run ends.
type Setup struct {
	// Ctx is bounded by SetupTimeout.
	Ctx context.Context
	// Assets is the KUBEBUILDER_ASSETS directory: kube-apiserver, etcd
	// and kubectl.
	Assets string
	// Root is the repository root.
	Root string
	// Tmp is the suite's scratch directory, removed when the run ends.
	Tmp string

	builds   []chan error
	deferred []func() error
}

// Build starts `go build -o Tmp/name pkg` in Root (pkg is relative to it:
// "./cmd/crdguard") and returns the binary's path. Run waits for it before
// the tests, so the binary builds while the control plane starts.
func (s *Setup) Build(name, pkg string) string {
	path := filepath.Join(s.Tmp, name)
	built := make(chan error, 1)
	s.builds = append(s.builds, built)
	go func() {
		cmd := exec.CommandContext(s.Ctx, "go", "build", "-o", path, pkg)
		cmd.Dir = s.Root
		if out, err := cmd.CombinedOutput(); err != nil {
			built <- fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
			return
		}
		built <- nil
	}()
	return path
}

// StartControlPlane starts env and stops it when the run ends, also when
// Start failed: it can fail after etcd or kube-apiserver started.
func (s *Setup) StartControlPlane(env *envtest.Environment) (*rest.Config, error) {
	cfg, err := env.Start()
	s.Defer(func() error {
		if err := env.Stop(); err != nil {
			return fmt.Errorf("stopping the control plane: %w", err)
		}
		return nil
	})
	return cfg, err
}

// Defer calls undo when the run ends, before what was deferred earlier.
// An error fails the run and is printed after "FAIL: ", so it says what
// failed: "the webhook stopped with an error: ...".
func (s *Setup) Defer(undo func() error) {
	s.deferred = append(s.deferred, undo)
}
