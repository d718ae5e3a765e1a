package cluster

import (
	"context"
	"errors"
	"testing"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

// TestReportingListerWatcher: a failed list or watch marks the watches
// lost, so Staleness grows; a call ended by its own context does not.
func TestReportingListerWatcher(t *testing.T) {
	down := errors.New("connection refused")
	lw := &toolscache.ListWatch{
		ListWithContextFunc:  func(context.Context, metav1.ListOptions) (runtime.Object, error) { return nil, down },
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return nil, down },
	}
	s := &Source{Log: logr.Discard()}
	reporting := s.ReportingListerWatcher(lw)

	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := reporting.(toolscache.ListerWatcherWithContext).ListWithContext(canceled, metav1.ListOptions{}); !errors.Is(err, down) {
		t.Fatalf("List = %v, want %v", err, down)
	}
	if s.watch.lost.Load() {
		t.Error("a call ended by its context marked the watches lost")
	}
	// Watch, deprecated, is still what an informer without contexts calls.
	if _, err := reporting.Watch(metav1.ListOptions{}); !errors.Is(err, down) { //nolint:staticcheck // the deprecated path, on purpose
		t.Fatalf("Watch = %v, want %v", err, down)
	}
	if !s.watch.lost.Load() || s.Staleness() <= 0 {
		t.Errorf("after a failed watch: lost %v, staleness %s; want lost and growing", s.watch.lost.Load(), s.Staleness())
	}
}
