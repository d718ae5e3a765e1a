// Package version is the version of crdguard's binaries.
package version

import "runtime/debug"

// version is set at link time, as the Dockerfile does:
// -ldflags "-X github.com/crdguard/crdguard/internal/version.version=v1.2.3".
var version = ""

// Get is the version set at link time, else the module version of a
// `go install`, else "(devel)".
func Get() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
