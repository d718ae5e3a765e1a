package app

import (
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"

	"github.com/crdguard/crdguard/internal/cluster"
)

// stepServer is the server Run would assemble from args, before any step.
func stepServer(t *testing.T, args ...string) *server {
	t.Helper()
	o, err := parse(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return newServer(o, logr.Discard())
}

// TestLoadSourcesFiles: --policies are loaded at once, and the engine
// counted; the audit evaluates the same engine.
func TestLoadSourcesFiles(t *testing.T) {
	s := stepServer(t, "--policies", examplePolicy, "--crds", exampleCRD)
	if err := s.loadSources(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !s.engines.Ready() || s.source != nil || s.audited != s.engines {
		t.Errorf("engines ready %v, source %v, audited the served engine %v; want an engine, no source, one holder",
			s.engines.Ready(), s.source, s.audited == s.engines)
	}
}

// TestLoadSourcesCluster: without --policies the source is prepared but
// nothing is loaded before the cache syncs; in mode vap the audit gets an
// engine of every rule of its own, and --crds are read once, for both.
func TestLoadSourcesCluster(t *testing.T) {
	for _, tc := range []struct {
		name         string
		args         []string
		ownAudit     bool
		fileSchemas  bool
		wantFileCRDs int
	}{
		{name: "webhook mode, CRDs watched"},
		{name: "vap mode", args: []string{"--enforcement", "vap"}, ownAudit: true},
		{name: "CRDs from files", args: []string{"--crds", exampleCRD}, fileSchemas: true, wantFileCRDs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := stepServer(t, tc.args...)
			if err := s.loadSources(t.Context()); err != nil {
				t.Fatal(err)
			}
			if s.source == nil || s.engines.Ready() {
				t.Fatalf("source %v, engines ready %v; want a source and no engine yet", s.source, s.engines.Ready())
			}
			if got := s.audited != s.engines; got != tc.ownAudit || got != (s.source.AllRules != nil) {
				t.Errorf("audit holder of its own %v (AllRules %v), want %v", got, s.source.AllRules, tc.ownAudit)
			}
			if got := s.source.Schemas != nil; got != tc.fileSchemas || len(s.fileCRDs) != tc.wantFileCRDs {
				t.Errorf("schemas from files %v, %d CRDs read; want %v, %d", got, len(s.fileCRDs), tc.fileSchemas, tc.wantFileCRDs)
			}
		})
	}
}

// TestConnectWithoutCluster: files alone run without a cluster, whose
// configuration then fails every call; anything that needs one names
// itself in the error.
func TestConnectWithoutCluster(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing-kubeconfig")
	s := stepServer(t, "--policies", examplePolicy, "--kubeconfig", missing)
	if err := s.connect(); err != nil {
		t.Fatal(err)
	}
	if s.cfg == nil || s.cfg.Host != "https://no-cluster.invalid" {
		t.Errorf("configuration %+v, want the no-cluster one", s.cfg)
	}

	s = stepServer(t, "--policies", examplePolicy, "--kubeconfig", missing, "--guard-crds", "--guard-crd-names", "widgets.example.io", "--validating-configurations", "crdguard")
	err := s.connect()
	if err == nil || !strings.HasSuffix(err.Error(), "; the cluster is needed for --guard-crds, --validating-configurations") {
		t.Errorf("connect = %v, want the cluster needed for --guard-crds, --validating-configurations", err)
	}
}

// TestManagerOptions: the lease's renew deadline and retry period keep
// controller-runtime's ratios, and only the leader-elected loops ask for
// an election.
func TestManagerOptions(t *testing.T) {
	s := stepServer(t, "--policies", examplePolicy, "--leader-election-lease-duration", "30s")
	opts := s.managerOptions(nil)
	if opts.LeaderElection || *opts.LeaseDuration != 30*time.Second || *opts.RenewDeadline != 20*time.Second || *opts.RetryPeriod != 4*time.Second {
		t.Errorf("election %v, lease %s, renew %s, retry %s; want none, 30s, 20s, 4s",
			opts.LeaderElection, *opts.LeaseDuration, *opts.RenewDeadline, *opts.RetryPeriod)
	}
	s = stepServer(t, "--audit")
	if !s.managerOptions(nil).LeaderElection {
		t.Error("--audit runs without a leader election")
	}
}

func TestRoutedConfigurations(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want []string
	}{
		{"named only", Options{ValidatingConfigurations: []string{"a", "b"}, WebhookConfiguration: "crdguard"}, []string{"a", "b"}},
		{"managed added", Options{ValidatingConfigurations: []string{"a"}, ManageWebhookRules: true, WebhookConfiguration: "crdguard"}, []string{"a", "crdguard"}},
		{"managed named already", Options{ValidatingConfigurations: []string{"crdguard"}, ManageWebhookRules: true, WebhookConfiguration: "crdguard"}, []string{"crdguard"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			named := slices.Clone(tc.o.ValidatingConfigurations)
			if diff := cmp.Diff(tc.want, tc.o.routedConfigurations()); diff != "" {
				t.Errorf("configurations (-want +got):\n%s", diff)
			}
			if !slices.Equal(named, tc.o.ValidatingConfigurations) {
				t.Errorf("--validating-configurations changed to %q", tc.o.ValidatingConfigurations)
			}
		})
	}
}

// TestReadyzChecks: not ready before an engine is loaded, nor once the
// shutdown starts.
func TestReadyzChecks(t *testing.T) {
	s := newServer(NewOptions(), logr.Discard())
	req := httptest.NewRequest("GET", "/readyz", nil)
	if err := enginesReady(s.engines)(req); err == nil {
		t.Error("ready without an engine")
	}
	engine, _, err := cluster.EngineFromFiles(t.Context(), []string{exampleCRD}, []string{examplePolicy}, cluster.ModeWebhook)
	if err != nil {
		t.Fatal(err)
	}
	s.engines.Store(engine)
	if err := enginesReady(s.engines)(req); err != nil {
		t.Errorf("not ready with an engine: %v", err)
	}
	if err := notDraining(s.draining)(req); err != nil {
		t.Errorf("not ready before the shutdown: %v", err)
	}
	s.draining.Store(true)
	if err := notDraining(s.draining)(req); err == nil || err.Error() != "shutting down" {
		t.Errorf("while draining: %v, want shutting down", err)
	}
}
