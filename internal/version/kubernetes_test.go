package version

import (
	"runtime/debug"
	"testing"
)

func TestKubernetes(t *testing.T) {
	// This test binary does not link k8s.io/apiextensions-apiserver; the
	// CLI's version test checks the real one.
	if got := Kubernetes(); got != "unknown" {
		t.Errorf("Kubernetes() = %q, want unknown", got)
	}
	info := &debug.BuildInfo{Deps: []*debug.Module{
		{Path: "k8s.io/apimachinery", Version: "v0.37.2"},
		{Path: validationModule, Version: "v0.37.2"},
	}}
	if got := moduleVersion(info, validationModule); got != "v0.37.2" {
		t.Errorf("moduleVersion = %q, want v0.37.2", got)
	}
	info.Deps[1].Replace = &debug.Module{Path: "../fork", Version: "v0.37.3-fork"}
	if got := moduleVersion(info, validationModule); got != "v0.37.3-fork" {
		t.Errorf("replaced: moduleVersion = %q, want v0.37.3-fork", got)
	}
	if got := moduleVersion(&debug.BuildInfo{}, validationModule); got != "unknown" {
		t.Errorf("missing: moduleVersion = %q, want unknown", got)
	}
}
