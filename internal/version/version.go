// Package version is the version of crdguard's binaries.
package version

import (
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"
)

// version is set at link time, as the Dockerfile does:
// -ldflags "-X github.com/crdguard/crdguard/internal/version.version=v1.2.3".
var version = ""

// Get is the version set at link time, else the module version of a
// `go install …@v1.2.3`, else the commit that go build stamps into a binary
// built in a git clone (see fromBuildInfo), else "(devel)".
func Get() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return fromBuildInfo(info)
}

// fromBuildInfo is the version that info tells. go build in a git clone
// records the commit (vcs.revision, vcs.time, vcs.modified) and, since Go
// 1.24, a pseudo-version made of them (v0.0.0-20261206234957-e6c9c4bb16dc):
// a source build names its commit plainly rather than as a v0.0.0 that
// reads like a release. A tag's own version is kept, and so is a
// pseudo-version without a commit (`go install …@COMMIT`).
func fromBuildInfo(info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	revision := settings["vcs.revision"]
	main := info.Main.Version
	if main != "" && main != "(devel)" && (revision == "" || !module.IsPseudoVersion(strings.TrimSuffix(main, "+dirty"))) {
		return main
	}
	if revision == "" {
		return "(devel)"
	}
	v := "(devel) commit " + revision[:min(len(revision), 12)]
	if t := settings["vcs.time"]; t != "" {
		v += ", " + t
	}
	if settings["vcs.modified"] == "true" {
		v += ", uncommitted changes"
	}
	return v
}
