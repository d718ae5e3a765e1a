package version

import "runtime/debug"

// validationModule is the module whose validation code crdguard runs: its
// version is the Kubernetes release whose verdicts crdguard gives.
const validationModule = "k8s.io/apiextensions-apiserver"

// Kubernetes is the version of k8s.io/apiextensions-apiserver built into the
// binary ("v0.37.2" validates as Kubernetes 1.37.2), "unknown" without
// build information.
func Kubernetes() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return moduleVersion(info, validationModule)
}

// moduleVersion is the version of module path among info's dependencies,
// following a replace directive.
func moduleVersion(info *debug.BuildInfo, path string) string {
	for _, m := range info.Deps {
		if m.Path != path {
			continue
		}
		if m.Replace != nil && m.Replace.Version != "" {
			return m.Replace.Version
		}
		return m.Version
	}
	return "unknown"
}
