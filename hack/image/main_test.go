package main

import (
	"archive/tar"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// fakeDist writes a dist directory as goreleaser leaves it: metadata,
// artifacts and, for each linux platform, binaries whose contents name
// them.
func fakeDist(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dist := filepath.Join(root, "dist")
	var artifacts []artifact
	for _, arch := range []string{"amd64", "arm64"} {
		for _, name := range []string{"crdguard", "crdguard-webhook", "kubectl-crdguard"} {
			path := filepath.Join("dist", name+"_linux_"+arch, name)
			writeFile(t, filepath.Join(root, path), name+" linux/"+arch)
			artifacts = append(artifacts, artifact{Name: name, Path: path, GOOS: "linux", GOARCH: arch, Type: "Binary"})
		}
		// Other platforms' binaries and other artifacts are not the image's.
		artifacts = append(artifacts,
			artifact{Name: "crdguard", Path: "dist/none/crdguard", GOOS: "darwin", GOARCH: arch, Type: "Binary"},
			artifact{Name: "crdguard_0.3.0-SNAPSHOT-abc_linux_" + arch + ".tar.gz", Path: "dist/none.tar.gz", GOOS: "linux", GOARCH: arch, Type: "Archive"})
	}
	writeJSON(t, filepath.Join(dist, "artifacts.json"), artifacts)
	writeJSON(t, filepath.Join(dist, "metadata.json"), map[string]any{"project_name": "crdguard", "version": "0.3.0-SNAPSHOT-abc", "date": "2026-11-30T10:20:30.456Z"})
	return dist
}

func writeFile(t *testing.T, path, contents string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(contents), 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
}

// file is what the test compares of one layer entry.
type file struct {
	Name     string
	Type     byte
	Mode     int64
	UID, GID int
	Contents string
}

// The layout holds one index of the two linux images, each with the
// Dockerfile's user, ports and entrypoint and the two binaries of its
// platform in /usr/local/bin.
func TestImageLayout(t *testing.T) {
	dist := fakeDist(t)
	dir, err := run(dist)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dist, "crdguard-webhook_0.3.0-SNAPSHOT-abc_oci"); dir != want {
		t.Errorf("layout written to %s, want %s", dir, want)
	}
	path, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	outer, err := path.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	outerManifest, err := outer.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(outerManifest.Manifests) != 1 || outerManifest.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "v0.3.0-SNAPSHOT-abc" {
		t.Fatalf("index.json = %+v, want one index tagged v0.3.0-SNAPSHOT-abc", outerManifest.Manifests)
	}
	index, err := outer.ImageIndex(outerManifest.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if manifest.MediaType != types.OCIImageIndex {
		t.Errorf("index media type %s, want %s", manifest.MediaType, types.OCIImageIndex)
	}
	var got []string
	for _, desc := range manifest.Manifests {
		got = append(got, desc.Platform.String())
	}
	if want := []string{"linux/amd64", "linux/arm64"}; !slices.Equal(got, want) {
		t.Fatalf("index platforms %q, want %q", got, want)
	}

	for _, desc := range manifest.Manifests {
		arch := desc.Platform.Architecture
		t.Run(arch, func(t *testing.T) {
			img, err := index.Image(desc.Digest)
			if err != nil {
				t.Fatal(err)
			}
			if mt, err := img.MediaType(); err != nil || mt != types.OCIManifestSchema1 {
				t.Errorf("manifest media type %s (%v), want %s", mt, err, types.OCIManifestSchema1)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if cf.OS != "linux" || cf.Architecture != arch {
				t.Errorf("config platform %s/%s, want linux/%s", cf.OS, cf.Architecture, arch)
			}
			if want := time.Date(2026, 11, 30, 10, 20, 30, 0, time.UTC); !cf.Created.Equal(want) {
				t.Errorf("created %s, want the release date in whole seconds %s", cf.Created, want)
			}
			wantConfig := v1.Config{
				User:         "65532:65532",
				Entrypoint:   []string{"/usr/local/bin/crdguard-webhook"},
				Env:          []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
				WorkingDir:   "/home/nonroot",
				ExposedPorts: map[string]struct{}{"9443/tcp": {}, "8443/tcp": {}, "8081/tcp": {}},
				Labels: map[string]string{
					"org.opencontainers.image.title":    "crdguard-webhook",
					"org.opencontainers.image.version":  "v0.3.0-SNAPSHOT-abc",
					"org.opencontainers.image.source":   "https://github.com/crdguard/crdguard",
					"org.opencontainers.image.licenses": "Apache-2.0",
				},
			}
			if diff := cmp.Diff(wantConfig, cf.Config); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}

			layers, err := img.Layers()
			if err != nil {
				t.Fatal(err)
			}
			if len(layers) != 1 {
				t.Fatalf("%d layers, want 1", len(layers))
			}
			if mt, err := layers[0].MediaType(); err != nil || mt != types.OCILayer {
				t.Errorf("layer media type %s (%v), want %s", mt, err, types.OCILayer)
			}
			wantFiles := []file{
				{Name: "etc/", Type: tar.TypeDir, Mode: 0o755},
				{Name: "etc/group", Type: tar.TypeReg, Mode: 0o644, Contents: group},
				{Name: "etc/passwd", Type: tar.TypeReg, Mode: 0o644, Contents: passwd},
				{Name: "home/", Type: tar.TypeDir, Mode: 0o755},
				{Name: "home/nonroot/", Type: tar.TypeDir, Mode: 0o700, UID: 65532, GID: 65532},
				{Name: "root/", Type: tar.TypeDir, Mode: 0o700},
				{Name: "tmp/", Type: tar.TypeDir, Mode: 0o1777},
				{Name: "usr/", Type: tar.TypeDir, Mode: 0o755},
				{Name: "usr/local/", Type: tar.TypeDir, Mode: 0o755},
				{Name: "usr/local/bin/", Type: tar.TypeDir, Mode: 0o755},
				{Name: "etc/nsswitch.conf", Type: tar.TypeReg, Mode: 0o644, Contents: nsswitch},
				{Name: "etc/ssl/", Type: tar.TypeDir, Mode: 0o755},
				{Name: "etc/ssl/certs/", Type: tar.TypeDir, Mode: 0o755},
				{Name: "etc/ssl/certs/ca-certificates.crt", Type: tar.TypeReg, Mode: 0o644},
				{Name: "usr/share/", Type: tar.TypeDir, Mode: 0o755},
				{Name: "usr/share/zoneinfo/", Type: tar.TypeDir, Mode: 0o755},
				{Name: "usr/local/bin/crdguard-webhook", Type: tar.TypeReg, Mode: 0o755, Contents: "crdguard-webhook linux/" + arch},
				{Name: "usr/local/bin/crdguard", Type: tar.TypeReg, Mode: 0o755, Contents: "crdguard linux/" + arch},
			}
			files := layerFiles(t, layers[0])
			var caBundle []byte
			zones := map[string]file{}
			files = slices.DeleteFunc(files, func(f file) bool {
				if zone, ok := strings.CutPrefix(f.Name, "usr/share/zoneinfo/"); ok && zone != "" {
					zones[zone] = f
					return true
				}
				if f.Name == "etc/ssl/certs/ca-certificates.crt" {
					caBundle = []byte(f.Contents)
				}
				return false
			})
			for i := range files {
				if files[i].Name == "etc/ssl/certs/ca-certificates.crt" {
					files[i].Contents = ""
				}
			}
			if diff := cmp.Diff(wantFiles, files); diff != "" {
				t.Errorf("layer files other than the time zones (-want +got):\n%s", diff)
			}
			checkCABundle(t, caBundle)
			checkZoneinfo(t, zones)
		})
	}
}

// The CA bundle is PEM certificates only, every one a CA, and among them
// Let's Encrypt's root, which crdguard's users' registries and proxies
// most often chain to.
func checkCABundle(t *testing.T, data []byte) {
	t.Helper()
	var subjects []string
	for len(data) > 0 {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil || block.Type != "CERTIFICATE" {
			t.Fatalf("the CA bundle holds something other than PEM certificates after %d of them", len(subjects))
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatalf("certificate %d: %v", len(subjects)+1, err)
		}
		if !cert.IsCA {
			t.Errorf("certificate %s is not a CA", cert.Subject)
		}
		subjects = append(subjects, cert.Subject.String())
	}
	if len(subjects) < 100 || !slices.Contains(subjects, "CN=ISRG Root X1,O=Internet Security Research Group,C=US") {
		t.Errorf("the CA bundle has %d roots, want the NSS set with ISRG Root X1", len(subjects))
	}
}

// The time zones are the toolchain's whole database, in directories, and
// each zone loads as a location.
func checkZoneinfo(t *testing.T, zones map[string]file) {
	t.Helper()
	for _, name := range []string{"UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires"} {
		f, ok := zones[name]
		if !ok || f.Type != tar.TypeReg || f.Mode != 0o644 {
			t.Errorf("zoneinfo %s: %+v, want a 0644 file", name, f)
			continue
		}
		if _, err := time.LoadLocationFromTZData(name, []byte(f.Contents)); err != nil {
			t.Errorf("zoneinfo %s: %v", name, err)
		}
	}
	for _, dir := range []string{"America/", "America/Argentina/"} {
		if f, ok := zones[dir]; !ok || f.Type != tar.TypeDir {
			t.Errorf("zoneinfo directory %s missing", dir)
		}
	}
	if len(zones) < 500 {
		t.Errorf("%d zoneinfo entries, want the whole database", len(zones))
	}
}

// layerFiles lists the layer's entries in order.
func layerFiles(t *testing.T, layer v1.Layer) []file {
	t.Helper()
	rc, err := layer.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var files []file
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{Name: h.Name, Type: h.Typeflag, Mode: h.Mode, UID: h.Uid, GID: h.Gid, Contents: string(data)})
	}
}

// Writing the image of the same release twice gives the same index.
func TestImageReproducible(t *testing.T) {
	dist := fakeDist(t)
	var digests []v1.Hash
	for range 2 {
		dir, err := run(dist)
		if err != nil {
			t.Fatal(err)
		}
		path, err := layout.FromPath(dir)
		if err != nil {
			t.Fatal(err)
		}
		index, err := path.ImageIndex()
		if err != nil {
			t.Fatal(err)
		}
		m, err := index.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Manifests) != 1 {
			t.Fatalf("index.json lists %d manifests, want 1", len(m.Manifests))
		}
		digests = append(digests, m.Manifests[0].Digest)
	}
	if digests[0] != digests[1] {
		t.Errorf("two runs gave indexes %s and %s", digests[0], digests[1])
	}
}

// A release without a linux binary the image needs is an error naming it.
func TestImageMissingBinary(t *testing.T) {
	dist := fakeDist(t)
	var artifacts []artifact
	if err := readJSON(filepath.Join(dist, "artifacts.json"), &artifacts); err != nil {
		t.Fatal(err)
	}
	artifacts = slices.DeleteFunc(artifacts, func(a artifact) bool { return a.Name == "crdguard" && a.GOARCH == "arm64" })
	writeJSON(t, filepath.Join(dist, "artifacts.json"), artifacts)
	_, err := run(dist)
	if want := "writing " + filepath.Join(dist, "crdguard-webhook_0.3.0-SNAPSHOT-abc_oci") + ": linux/arm64: no crdguard binary"; err == nil || err.Error() != want {
		t.Errorf("run = %v, want %q", err, want)
	}
}
