package localsuite

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// tests stands in for testing.M: it records that the tests ran.
type tests struct {
	code int
	ran  bool
}

func (m *tests) Run() int {
	m.ran = true
	return m.code
}

var demo = Suite{Name: "demo e2e", Package: "./test/demo/", Purpose: "need a demo"}

// run runs the demo suite with setup and m for its tests, and returns the
// exit code and what the run printed.
func run(m *tests, setup func(*Setup) error) (code int, stderr string) {
	var out strings.Builder
	s := demo
	s.stderr = &out
	code = s.Run(m, setup)
	return code, out.String()
}

func TestRunWithoutAssets(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", "")
	m := &tests{}
	code, stderr := run(m, func(*Setup) error {
		t.Error("setup ran without assets")
		return nil
	})
	want := "FAIL: KUBEBUILDER_ASSETS is not set. These tests need a demo;\n" +
		"run `make test`, or: KUBEBUILDER_ASSETS=$(sh hack/tools/install.sh envtest) go test ./test/demo/\n"
	if code != 1 || m.ran || stderr != want {
		t.Errorf("code %d, tests ran %v, stderr:\n%s\nwant code 1, no tests, stderr:\n%s", code, m.ran, stderr, want)
	}
}

// TestRunSetupFails: a setup error exits 1 before the tests, and what
// setup deferred is still undone, the last first.
func TestRunSetupFails(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", "/assets")
	m := &tests{}
	var undone []string
	var tmp string
	code, stderr := run(m, func(setup *Setup) error {
		tmp = setup.Tmp
		if setup.Assets != "/assets" || !strings.Contains(tmp, "crdguard-demo-e2e-") || setup.Ctx.Err() != nil {
			t.Errorf("setup got assets %q, tmp %q, ctx error %v", setup.Assets, tmp, setup.Ctx.Err())
		}
		setup.Defer(func() error { undone = append(undone, "first"); return nil })
		setup.Defer(func() error { undone = append(undone, "second"); return errors.New("the second stopped with an error") })
		return errors.New("starting: boom")
	})
	want := "FAIL: demo e2e setup: starting: boom\nFAIL: the second stopped with an error\n"
	if code != 1 || m.ran || stderr != want {
		t.Errorf("code %d, tests ran %v, stderr:\n%s\nwant code 1, no tests, stderr:\n%s", code, m.ran, stderr, want)
	}
	if !slices.Equal(undone, []string{"second", "first"}) {
		t.Errorf("undone %v, want second then first", undone)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the scratch directory %s is left: %v", tmp, err)
	}
}

// TestRunTests: the tests run once setup and its builds are done, their
// code is the run's unless an undo fails.
func TestRunTests(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", "/assets")
	for _, tt := range []struct {
		name     string
		undoErr  error
		wantCode int
		wantFail string
	}{
		{name: "tests fail", wantCode: 3},
		{name: "undo fails", undoErr: errors.New("the webhook stopped with an error: EOF"), wantCode: 1, wantFail: "FAIL: the webhook stopped with an error: EOF\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &tests{code: 3}
			var binary string
			code, stderr := run(m, func(setup *Setup) error {
				binary = setup.Build("hello", "./internal/localsuite/testdata/hello")
				setup.Defer(func() error {
					if !m.ran {
						t.Error("undone before the tests ran")
					}
					if _, err := os.Stat(binary); err != nil {
						t.Errorf("the tests ran without the binary: %v", err)
					}
					return tt.undoErr
				})
				return nil
			})
			if code != tt.wantCode || !m.ran {
				t.Errorf("code %d, tests ran %v; want code %d after the tests", code, m.ran, tt.wantCode)
			}
			ready, failed, _ := strings.Cut(stderr, "\n")
			if !strings.HasPrefix(ready, "demo e2e: ready in ") || failed != tt.wantFail {
				t.Errorf("stderr:\n%s\nwant the ready line, then %q", stderr, tt.wantFail)
			}
			if !strings.Contains(binary, "crdguard-demo-e2e-") || !strings.HasSuffix(binary, "hello") {
				t.Errorf("Build returned %s, want hello in the scratch directory", binary)
			}
		})
	}
}

// TestRunBuildFails: a binary that does not build fails the setup with go
// build's output.
func TestRunBuildFails(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", "/assets")
	m := &tests{}
	code, stderr := run(m, func(setup *Setup) error {
		setup.Build("missing", "./internal/localsuite/testdata/missing")
		return nil
	})
	if code != 1 || m.ran || !strings.HasPrefix(stderr, "FAIL: demo e2e setup: go build ./internal/localsuite/testdata/missing: exit status 1\n") {
		t.Errorf("code %d, tests ran %v, stderr:\n%s\nwant code 1, no tests, go build's error", code, m.ran, stderr)
	}
}
