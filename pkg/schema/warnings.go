package schema

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/warning"
)

// The limits of the server's warning recorder
// (k8s.io/apiserver/pkg/endpoints/filters): past warningRunes in all, every
// warning is cut to warningItemRunes and those that no longer fit are
// dropped.
const (
	warningRunes     = 4 * 1024
	warningItemRunes = 256
)

// WarningRecorder collects the warnings the API server's validation code
// adds to a request's context while it validates, such as a CEL rule an
// unchanged value still breaks, which ratcheting turns into a warning. Like
// the server's recorder it drops repeats and keeps to the server's size
// limits. It is not safe for concurrent use.
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

// Warnings are the recorded warnings in the order they were added, as the
// server sends them: once they exceed its limit in all, cut to its limit
// each, and without those added after that total was reached again.
func (r *WarningRecorder) Warnings() []string {
	var out []string
	written, truncating := 0, false
	for i, text := range r.warnings {
		if truncating && written >= warningRunes {
			break
		}
		n := utf8.RuneCountInString(text)
		if truncating || written+n <= warningRunes {
			text, n = truncateWarning(text, truncating)
			written += n
			out = append(out, text)
			continue
		}
		truncating, written, out = true, 0, nil
		for _, text := range r.warnings[:i+1] {
			text, n := truncateWarning(text, true)
			written += n
			out = append(out, text)
		}
	}
	return out
}

// truncateWarning cuts text to the server's limit of one warning, on a rune
// boundary, when the server is truncating. It returns the text and its
// length in runes.
func truncateWarning(text string, truncating bool) (string, int) {
	if runes := []rune(text); truncating && len(runes) > warningItemRunes {
		return string(runes[:warningItemRunes]), warningItemRunes
	}
	return text, utf8.RuneCountInString(text)
}

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
