package localsuite

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/crdguard/crdguard/internal/corpus"
)

// SetupTimeout bounds a suite's setup: starting the control plane,
// installing its CRDs, building binaries and starting a webhook.
const SetupTimeout = 3 * time.Minute

// Suite is one package of tests against a local control plane.
type Suite struct {
	// Name names the suite in its messages, "FAIL: <Name> setup: ..." and
	// "<Name>: ready in ...", and its scratch directory.
	Name string
	// Package is the suite's package path from the repository root, for
	// the hint how to run it without make: "./test/e2e/".
	Package string
	// Purpose completes "These tests ..." in the hint that
	// KUBEBUILDER_ASSETS is not set: what they need the control plane for.
	Purpose string
	// stderr is where the messages go; os.Stderr when nil.
	stderr io.Writer
}

// Main runs the suite (see Run) and exits with its code.
func (s Suite) Main(m *testing.M, setup func(*Setup) error) {
	os.Exit(s.Run(m, setup))
}

// Run checks KUBEBUILDER_ASSETS, calls setup, waits for the binaries it
// builds and runs the tests; then it calls what setup deferred, the last
// first. It returns 1 when the assets are not set, setup or a build
// fails, or a deferred call does, and the tests' code otherwise.
func (s Suite) Run(m interface{ Run() int }, setup func(*Setup) error) (code int) {
	stderr := s.stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		fmt.Fprintln(stderr, "FAIL: KUBEBUILDER_ASSETS is not set. These tests "+s.Purpose+";\n"+
			"run `make test`, or: KUBEBUILDER_ASSETS=$(sh hack/tools/install.sh envtest) go test "+s.Package)
		return 1
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "FAIL: %s setup: %v\n", s.Name, err)
		return 1
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), SetupTimeout)
	defer cancel()

	tmp, err := os.MkdirTemp("", "crdguard-"+strings.ReplaceAll(strings.ToLower(s.Name), " ", "-")+"-")
	if err != nil {
		return fail(err)
	}
	run := &Setup{Ctx: ctx, Assets: assets, Root: corpus.RepositoryRoot(), Tmp: tmp}
	run.Defer(func() error {
		os.RemoveAll(tmp)
		return nil
	})
	defer func() {
		for i := len(run.deferred) - 1; i >= 0; i-- {
			if err := run.deferred[i](); err != nil {
				fmt.Fprintf(stderr, "FAIL: %v\n", err)
				code = 1
			}
		}
	}()

	err = setup(run)
	if err != nil {
		// Stop the builds before their directory is removed.
		cancel()
	}
	for _, built := range run.builds {
		if buildErr := <-built; err == nil {
			err = buildErr
		}
	}
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "%s: ready in %s\n", s.Name, time.Since(start).Round(time.Millisecond))
	return m.Run()
}
