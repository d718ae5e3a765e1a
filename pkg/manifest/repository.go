package manifest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Files of a repository that are YAML but not manifests, which a walk with
// SkipRepositoryFiles reports as skipped rather than as broken documents.
// What is not recognised here needs WalkOptions.Exclude.
const (
	githubDir    = ".github"
	githubReason = "GitHub configuration (workflows, templates), not manifests"

	kustomizationReason = "kustomization file: render it with kustomize build and validate the output"
	chartFileReason     = "Helm chart metadata or values, not a manifest"
	helmTemplateReason  = "Helm template: render it with helm template and validate the output"
)

// kustomizationNames are the names kustomize reads its configuration from.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// chartFiles are the files of a Helm chart's own directory that describe
// the chart; other values files (values-prod.yaml) need an Exclude pattern.
var chartFiles = []string{"Chart.yaml", "values.yaml", "values.schema.json"}

// repositoryFile says why name is a repository file that is not a
// manifest, or "" when it is to be read: a kustomization, a Helm chart's
// Chart.yaml, values.yaml and values.schema.json, a template under a
// chart's templates/ directory with template actions ("{{"), anything
// under .github.
func (w *walker) repositoryFile(name string) string {
	clean := filepath.Clean(name)
	base := filepath.Base(clean)
	dir := filepath.Dir(clean)
	switch {
	case slices.Contains(kustomizationNames, base):
		return kustomizationReason
	case slices.Contains(strings.Split(filepath.ToSlash(clean), "/"), githubDir):
		return githubReason
	case slices.Contains(chartFiles, base) && w.isChart(dir):
		return chartFileReason
	case w.inChartTemplates(dir) && hasTemplateActions(clean):
		return helmTemplateReason
	}
	return ""
}

// isChart says whether dir holds a Helm chart.
func (w *walker) isChart(dir string) bool {
	is, seen := w.charts[dir]
	if !seen {
		info, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
		is = err == nil && info.Mode().IsRegular()
		w.charts[dir] = is
	}
	return is
}

// inChartTemplates says whether dir is a chart's templates/ directory or
// below one.
func (w *walker) inChartTemplates(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if filepath.Base(d) == "templates" && w.isChart(filepath.Dir(d)) {
			return true
		}
		if parent := filepath.Dir(d); parent == d {
			return false
		}
	}
}

// hasTemplateActions says whether the file holds "{{": a Helm template
// without one is a plain manifest and is read. A file that cannot be read
// is read anyway, for its read to say why.
func hasTemplateActions(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSourceBytes))
	return err == nil && bytes.Contains(data, []byte("{{"))
}

// kustomizeGroup is the API group of kustomize's own configuration kinds.
const kustomizeGroup = "kustomize.config.k8s.io"

// IsKustomizeConfig says whether obj is kustomize's configuration (a
// Kustomization or Component of kustomize.config.k8s.io), which kustomize
// reads and never sends to an API server. Flux's Kustomization, of
// kustomize.toolkit.fluxcd.io, is an object like any other.
func IsKustomizeConfig(obj *unstructured.Unstructured) bool {
	gvk := obj.GroupVersionKind()
	return gvk.Group == kustomizeGroup && (gvk.Kind == "Kustomization" || gvk.Kind == "Component")
}
