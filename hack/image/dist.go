package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// release is what the image needs of a goreleaser dist directory.
type release struct {
	// version is goreleaser's, without the v: 1.2.3.
	version string
	date    time.Time
	// binaries maps platform ("linux/amd64") and binary name to its path.
	binaries map[string]map[string]string
}

// metadata is the part of dist/metadata.json read here.
type metadata struct {
	Version string    `json:"version"`
	Date    time.Time `json:"date"`
}

// artifact is one entry of dist/artifacts.json.
type artifact struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
	Type   string `json:"type"`
}

// readRelease reads dist's metadata and the paths of its linux binaries.
// Artifact paths are relative to the directory goreleaser ran in, dist's
// parent.
func readRelease(dist string) (*release, error) {
	var meta metadata
	if err := readJSON(filepath.Join(dist, "metadata.json"), &meta); err != nil {
		return nil, err
	}
	if meta.Version == "" {
		return nil, fmt.Errorf("%s: no version", filepath.Join(dist, "metadata.json"))
	}
	var artifacts []artifact
	if err := readJSON(filepath.Join(dist, "artifacts.json"), &artifacts); err != nil {
		return nil, err
	}
	r := &release{version: meta.Version, date: meta.Date, binaries: map[string]map[string]string{}}
	for _, a := range artifacts {
		if a.Type != "Binary" || a.GOOS != "linux" {
			continue
		}
		platform := a.GOOS + "/" + a.GOARCH
		if r.binaries[platform] == nil {
			r.binaries[platform] = map[string]string{}
		}
		path := a.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(dist), path)
		}
		r.binaries[platform][a.Name] = path
	}
	return r, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
