package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// podSpecPaths are where each workload kind keeps its pod spec.
var podSpecPaths = map[string]string{
	"Pod":                   "spec",
	"Deployment":            "spec.template.spec",
	"StatefulSet":           "spec.template.spec",
	"DaemonSet":             "spec.template.spec",
	"ReplicaSet":            "spec.template.spec",
	"ReplicationController": "spec.template.spec",
	"Job":                   "spec.template.spec",
	"CronJob":               "spec.jobTemplate.spec.template.spec",
}

// WorkloadResourcePaths are the ResourceRequirements of every container and
// init container, per kind.
var WorkloadResourcePaths = func() map[string][]ObjectPath {
	paths := map[string][]ObjectPath{}
	for kind, podSpec := range podSpecPaths {
		for _, list := range []string{"containers", "initContainers"} {
			p, err := parsePath(podSpec + "." + list + "[*].resources")
			if err != nil {
				panic(err) // the table above is wrong
			}
			paths[kind] = append(paths[kind], p)
		}
	}
	return paths
}()

// resourcePaths are the paths a rule checks on an object of kind: its own
// plus the preset's for that kind.
func resourcePaths(own []ObjectPath, preset v1alpha1.ResourcesPreset, kind string) []ObjectPath {
	if preset != v1alpha1.Workloads {
		return own
	}
	return append(own[:len(own):len(own)], WorkloadResourcePaths[kind]...)
}

// parsePaths parses rule paths, reporting each bad one at its index.
func parsePaths(raw []string, fldPath *field.Path) ([]ObjectPath, field.ErrorList) {
	out := make([]ObjectPath, 0, len(raw))
	var errs field.ErrorList
	for i, s := range raw {
		p, err := parsePath(s)
		if err != nil {
			errs = append(errs, field.Invalid(fldPath.Index(i), s, err.Error()))
			continue
		}
		out = append(out, p)
	}
	return out, errs
}
