package main

import (
	"bytes"
	"fmt"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// platforms are the image's, in the index's order.
var platforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}

// binaries are the image's, in /usr/local/bin; the first is the entrypoint.
var binaries = []string{"crdguard-webhook", "crdguard"}

// config is the Dockerfile's USER, EXPOSE and ENTRYPOINT, with distroless's
// PATH and working directory, and the OCI labels of the release. version is
// the one the binaries report (v1.2.3).
func config(version string) v1.Config {
	return v1.Config{
		User:       fmt.Sprintf("%d:%d", nonroot, nonroot),
		Entrypoint: []string{"/usr/local/bin/" + binaries[0]},
		Env:        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		WorkingDir: "/home/nonroot",
		ExposedPorts: map[string]struct{}{
			"9443/tcp": {}, // admission webhook (HTTPS)
			"8443/tcp": {}, // metrics (HTTPS)
			"8081/tcp": {}, // health probes
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":    "crdguard-webhook",
			"org.opencontainers.image.version":  version,
			"org.opencontainers.image.source":   "https://github.com/crdguard/crdguard",
			"org.opencontainers.image.licenses": "Apache-2.0",
		},
	}
}

// writeLayout writes r's image for every platform as one index into the
// OCI image layout at dir, tagged with the version the binaries report.
func writeLayout(r *release, dir string) error {
	created := v1.Time{Time: r.date.Truncate(time.Second)}
	index := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		img, err := platformImage(r, p, created)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		index = mutate.AppendManifests(index, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	path, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	return path.AppendIndex(index, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": "v" + r.version}))
}

// platformImage is the image of one platform: an empty base, one layer.
func platformImage(r *release, p v1.Platform, created v1.Time) (v1.Image, error) {
	tarData, err := rootfs(r.binaries[p.String()], binaries, created.Time)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(tarData)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = p.OS, p.Architecture
	cf.Created = created
	cf.Config = config("v" + r.version)
	return mutate.ConfigFile(img, cf)
}
