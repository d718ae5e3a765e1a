package schema

import (
	"context"
	"fmt"
	"slices"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/warning"
)

// WarningRecorder collects the warnings the API server's validation code
// adds to a request's context while it validates, such as a CEL rule an
// unchanged value still breaks, which ratcheting turns into a warning. Like
// the server's recorder it drops repeats. It is not safe for concurrent use.
type WarningRecorder struct {
	warnings []string
}

// RecordWarnings returns ctx carrying a new recorder: Validate calls made
// with the returned context record their warnings in it.
func RecordWarnings(ctx context.Context) (context.Context, *WarningRecorder) {
	r := &WarningRecorder{}
	return warning.WithWarningRecorder(ctx, r), r
}

// AddWarning implements warning.Recorder.
func (r *WarningRecorder) AddWarning(_, text string) {
	if text != "" && !slices.Contains(r.warnings, text) {
		r.warnings = append(r.warnings, text)
	}
}

// Warnings are the recorded warnings, in the order they were added.
func (r *WarningRecorder) Warnings() []string { return slices.Clone(r.warnings) }

// versionWarnings is what the server's CRD handler adds to every request
// for a deprecated version, whatever its verdict: the version's
// deprecationWarning, or a default naming the newest served version that is
// not deprecated.
func versionWarnings(crd *apiextensionsv1.CustomResourceDefinition, name string) []string {
	for _, v := range crd.Spec.Versions {
		switch {
		case v.Name != name || !v.Deprecated:
		case v.DeprecationWarning != nil:
			return []string{*v.DeprecationWarning}
		default:
			return []string{defaultDeprecationWarning(name, crd.Spec)}
		}
	}
	return nil
}

// defaultDeprecationWarning words the warning as
// k8s.io/apiextensions-apiserver/pkg/apiserver's unexported function of the
// same name does.
func defaultDeprecationWarning(deprecated string, spec apiextensionsv1.CustomResourceDefinitionSpec) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", spec.Group, deprecated, spec.Names.Kind)
	var newer []string
	for _, v := range spec.Versions {
		if v.Served && !v.Deprecated && version.CompareKubeAwareVersionStrings(deprecated, v.Name) < 0 {
			newer = append(newer, v.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0 })
	return msg + fmt.Sprintf("; use %s/%s %s", spec.Group, newer[0], spec.Names.Kind)
}
