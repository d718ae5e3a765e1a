package app

import "runtime/debug"

// version is set at link time, as the Dockerfile does:
// -ldflags "-X github.com/crdguard/crdguard/cmd/webhook/app.version=v1.2.3".
// A plain `go install` falls back to the module version.
var version = ""

// Version is crdguard-webhook's version, printed by --version and logged at
// start.
func Version() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
