package version

import (
	"runtime/debug"
	"testing"
)

func TestGet(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "v1.2.3"
	if got := Get(); got != "v1.2.3" {
		t.Errorf("with -X: %q, want v1.2.3", got)
	}
	// go test stamps neither a module version nor a commit into a test
	// binary; cmd/crdguard's TestVersionOfClone checks a real go build.
	version = ""
	if got := Get(); got != "(devel)" {
		t.Errorf("without -X: %q, want (devel)", got)
	}
}

func TestFromBuildInfo(t *testing.T) {
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "e6c9c4bb16dc4b8940cd31aa4fd7c3b788dc1540"},
			{Key: "vcs.time", Value: "2026-12-06T23:49:57Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	for _, tc := range []struct {
		name     string
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"go build, buildvcs off", "(devel)", nil, "(devel)"},
		{"no main version", "", nil, "(devel)"},
		{"go build in a clean clone", "v0.0.0-20261206234957-e6c9c4bb16dc", vcs("false"), "(devel) commit e6c9c4bb16dc, 2026-12-06T23:49:57Z"},
		{"go build with changes", "v0.0.0-20261206234957-e6c9c4bb16dc+dirty", vcs("true"), "(devel) commit e6c9c4bb16dc, 2026-12-06T23:49:57Z, uncommitted changes"},
		{"go build before Go 1.24", "(devel)", vcs("false"), "(devel) commit e6c9c4bb16dc, 2026-12-06T23:49:57Z"},
		{"go build at a tag", "v0.1.0", vcs("false"), "v0.1.0"},
		{"go build at a tag with changes", "v0.1.0+dirty", vcs("true"), "v0.1.0+dirty"},
		{"go install at a tag", "v0.1.0", nil, "v0.1.0"},
		{"go install at a commit", "v0.1.1-0.20261206234957-e6c9c4bb16dc", nil, "v0.1.1-0.20261206234957-e6c9c4bb16dc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/crdguard/crdguard", Version: tc.main}, Settings: tc.settings}
			if got := fromBuildInfo(info); got != tc.want {
				t.Errorf("fromBuildInfo = %q, want %q", got, tc.want)
			}
		})
	}
}
