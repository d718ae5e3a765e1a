package ci

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// goreleaser is the part of .goreleaser.yaml that the release's consumers
// depend on.
type goreleaser struct {
	Builds []struct {
		ID      string   `json:"id"`
		Main    string   `json:"main"`
		Binary  string   `json:"binary"`
		Env     []string `json:"env"`
		Flags   []string `json:"flags"`
		Ldflags []string `json:"ldflags"`
		Goos    []string `json:"goos"`
		Goarch  []string `json:"goarch"`
	} `json:"builds"`
	Archives []struct {
		ID              string   `json:"id"`
		IDs             []string `json:"ids"`
		NameTemplate    string   `json:"name_template"`
		Formats         []string `json:"formats"`
		WrapInDirectory string   `json:"wrap_in_directory"`
		FormatOverrides []struct {
			Goos    string   `json:"goos"`
			Formats []string `json:"formats"`
		} `json:"format_overrides"`
	} `json:"archives"`
	Checksum struct {
		NameTemplate string `json:"name_template"`
		Algorithm    string `json:"algorithm"`
	} `json:"checksum"`
	Krews []struct {
		IDs        []string `json:"ids"`
		SkipUpload bool     `json:"skip_upload"`
	} `json:"krews"`
}

// The release publishes what action/install.sh downloads: for every
// platform it knows, crdguard_VERSION_OS_ARCH.tar.gz (.zip on windows)
// with the crdguard binary at its root, checked against checksums.txt.
// The kubectl plugin's archive holds only kubectl-crdguard, as Krew wants.
func TestReleaseNames(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaser
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	install, err := os.ReadFile(filepath.Join(root, "action", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"archive=crdguard_${version#v}_${os}_${arch}.${ext}", `for file in "$archive" checksums.txt`, "os=linux", "os=darwin", "os=windows", "arch=amd64", "arch=arm64", "ext=zip binary=crdguard.exe"} {
		if !strings.Contains(string(install), want) {
			t.Errorf("action/install.sh lacks %q, which this test holds .goreleaser.yaml to", want)
		}
	}

	binaries := map[string]string{}
	for _, b := range cfg.Builds {
		binaries[b.ID] = b.Binary
		// go build ./cmd/... names each binary after its directory: the
		// same name as the release's.
		if want := "./cmd/" + b.Binary; b.Main != want {
			t.Errorf("build %s: main %q, want %q so that go build names the binary %s too", b.ID, b.Main, want, b.Binary)
		}
		if !slices.Equal(b.Goos, []string{"linux", "darwin", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
			t.Errorf("build %s: goos %q, goarch %q; want linux, darwin, windows × amd64, arm64", b.ID, b.Goos, b.Goarch)
		}
		if !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
			t.Errorf("build %s: env %q, flags %q; want CGO_ENABLED=0 and -trimpath", b.ID, b.Env, b.Flags)
		}
		if len(b.Ldflags) != 1 || !strings.Contains(b.Ldflags[0], "-X github.com/crdguard/crdguard/internal/version.version=v{{ .Version }}") {
			t.Errorf("build %s: ldflags %q do not stamp the version", b.ID, b.Ldflags)
		}
	}
	if want := map[string]string{"crdguard": "crdguard", "kubectl-crdguard": "kubectl-crdguard", "crdguard-webhook": "crdguard-webhook"}; !maps.Equal(binaries, want) {
		t.Errorf("builds (id: binary) %v, want %v", binaries, want)
	}

	archives := map[string]bool{}
	for _, a := range cfg.Archives {
		archives[a.ID] = true
		if want := a.ID + "_{{ .Version }}_{{ .Os }}_{{ .Arch }}"; a.NameTemplate != want {
			t.Errorf("archive %s: name_template %q, want %q", a.ID, a.NameTemplate, want)
		}
		if !slices.Equal(a.IDs, []string{a.ID}) {
			t.Errorf("archive %s holds builds %q, want only %s", a.ID, a.IDs, a.ID)
		}
		if a.WrapInDirectory != "" {
			t.Errorf("archive %s: wrap_in_directory %q; the binary must be at the archive's root", a.ID, a.WrapInDirectory)
		}
		if !slices.Equal(a.Formats, []string{"tar.gz"}) || len(a.FormatOverrides) != 1 || a.FormatOverrides[0].Goos != "windows" || !slices.Equal(a.FormatOverrides[0].Formats, []string{"zip"}) {
			t.Errorf("archive %s: formats %q, overrides %+v; want tar.gz, zip on windows", a.ID, a.Formats, a.FormatOverrides)
		}
	}
	if !archives["crdguard"] || !archives["kubectl-crdguard"] {
		t.Errorf("archives %v, want crdguard and kubectl-crdguard", archives)
	}
	if cfg.Checksum.NameTemplate != "checksums.txt" || cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %+v, want checksums.txt with sha256", cfg.Checksum)
	}
	if len(cfg.Krews) != 1 || !slices.Equal(cfg.Krews[0].IDs, []string{"kubectl-crdguard"}) || !cfg.Krews[0].SkipUpload {
		t.Errorf("krews %+v, want one manifest of the kubectl-crdguard archives, not uploaded", cfg.Krews)
	}
}
