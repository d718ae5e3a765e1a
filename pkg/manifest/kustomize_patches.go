package manifest

import (
	"os"
	"path/filepath"
	"slices"

	"sigs.k8s.io/yaml"
)

// IsKustomization says whether name is a file kustomize reads its
// configuration from.
func IsKustomization(name string) bool {
	return slices.Contains(kustomizationNames, filepath.Base(name))
}

// KustomizePatches returns the files the kustomization at path applies as
// patches (patches, patchesStrategicMerge, patchesJson6902), as paths
// joined to the kustomization's directory. A patch of a CRD is a fragment
// of one (only the fields it changes), which no CRD reader should take
// for a whole CRD. Inline patches and entries that are not files are left
// out.
func KustomizePatches(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var k struct {
		Patches []struct {
			Path string `json:"path"`
		} `json:"patches"`
		PatchesStrategicMerge []string `json:"patchesStrategicMerge"`
		PatchesJSON6902       []struct {
			Path string `json:"path"`
		} `json:"patchesJson6902"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		return nil, &SourceError{Source: path, Err: err}
	}
	var files []string
	for _, p := range k.Patches {
		files = append(files, p.Path)
	}
	// A strategic merge entry may be an inline patch rather than a file
	// name; as a path it then names nothing, which is harmless.
	files = append(files, k.PatchesStrategicMerge...)
	for _, p := range k.PatchesJSON6902 {
		files = append(files, p.Path)
	}
	dir := filepath.Dir(path)
	var out []string
	for _, f := range files {
		if f != "" {
			out = append(out, filepath.Join(dir, f))
		}
	}
	return out, nil
}
