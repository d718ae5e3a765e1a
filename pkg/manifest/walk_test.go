package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/crdguard/crdguard/internal/filetree"
)

// assertWalk walks paths with opts and checks that it lists exactly want,
// in order: "path" or "path: skip reason" for each source, relative to dir.
func assertWalk(t *testing.T, dir string, paths []string, opts WalkOptions, want ...string) {
	t.Helper()
	sources, err := Walk(paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sources {
		rel, err := filepath.Rel(dir, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		line := filepath.ToSlash(rel)
		if s.Skip != "" {
			line += ": " + s.Skip
		}
		if s.Err != nil {
			line += ": error: " + s.Err.Error()
		}
		got = append(got, line)
	}
	if !slices.Equal(got, want) {
		t.Errorf("sources:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWalkSkipsWhatIsNotAFile(t *testing.T) {
	dir := filetree.Write(t, map[string]string{"a.yaml": "", "sub/b.yaml": ""})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "linked-dir.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing.yaml", filepath.Join(dir, "dangling.yaml")); err != nil {
		t.Fatal(err)
	}
	assertWalk(t, dir, []string{dir}, WalkOptions{},
		"a.yaml",
		// Listed, for its read to say that its target is missing.
		"dangling.yaml",
		// Followed, whatever its name.
		"linked-dir.yaml/b.yaml",
		"pipe.yaml: not a regular file (named pipe)",
		"sub/b.yaml",
	)

	// A library caller reading CRDs gets an error, not a read that blocks.
	if _, err := ReadPaths(nil, dir); err == nil || err.Error() != filepath.Join(dir, "dangling.yaml")+": symbolic link to missing.yaml, which does not exist" {
		t.Errorf("ReadPaths: err = %v", err)
	}
}

// Directory links are followed, whatever their name (samples ->
// ../update holds manifests though "samples" is no manifest's name), each
// target once; a link back to a directory it is in would loop, and is
// skipped with a note, as is a second link to a target already read.
func TestWalkFollowsDirectoryLinks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		links map[string]string // link: target, relative to the link
		want  []string
	}{
		{
			name:  "followed",
			links: map[string]string{"objects/samples": "../update"},
			want:  []string{"objects/a.yaml", "objects/samples/nested/deep.yaml", "objects/samples/new.yaml"},
		},
		{
			name: "loops and a target read twice",
			links: map[string]string{
				"objects/again":   "../update",
				"objects/loop":    "..",
				"objects/samples": "../update",
				"objects/self":    ".",
				// Reached through objects/again: back to objects, a loop.
				"update/nested/back": "../../objects",
			},
			want: []string{
				"objects/a.yaml",
				"objects/again/nested/back: symbolic link to a directory it is in (a loop), not followed",
				"objects/again/nested/deep.yaml",
				"objects/again/new.yaml",
				"objects/loop: symbolic link to a directory it is in (a loop), not followed",
				"objects/samples: symbolic link to a directory already read through {dir}/objects/again",
				"objects/self: symbolic link to a directory it is in (a loop), not followed",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filetree.Write(t, map[string]string{"objects/a.yaml": "", "update/new.yaml": "", "update/nested/deep.yaml": ""})
			for link, target := range tc.links {
				if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			want := make([]string, len(tc.want))
			for i, w := range tc.want {
				want[i] = strings.ReplaceAll(w, "{dir}", dir)
			}
			assertWalk(t, dir, []string{filepath.Join(dir, "objects")}, WalkOptions{}, want...)
		})
	}
}

func TestWalkRecognisesRepositoryFiles(t *testing.T) {
	dir := filetree.Write(t, map[string]string{
		"deploy/kustomization.yaml":        "resources: [widget.yaml]\n",
		"deploy/widget.yaml":               "",
		"chart/Chart.yaml":                 "apiVersion: v2\nname: x\nversion: 1.0.0\n",
		"chart/values.yaml":                "replicas: 1\n",
		"chart/values-prod.yaml":           "replicas: 3\n",
		"chart/templates/deployment.yaml":  "replicas: {{ .Values.replicas }}\n",
		"chart/templates/sub/service.yaml": "name: {{ .Release.Name }}\n",
		"chart/templates/plain.yaml":       "apiVersion: v1\nkind: ConfigMap\n",
		"chart/crds/widgets.yaml":          "",
		"templates/not-a-chart.yaml":       "{{ x }}\n",
		"values.yaml":                      "not next to a Chart.yaml\n",
		".github/workflows/ci.yml":         "on: push\n",
		".github/dependabot.yml":           "version: 2\n",
		"docs/.github-like/notes.yaml":     "",
	})
	assertWalk(t, dir, []string{dir}, WalkOptions{SkipRepositoryFiles: true},
		".github: GitHub configuration (workflows, templates), not manifests",
		"chart/Chart.yaml: Helm chart metadata or values, not a manifest",
		"chart/crds/widgets.yaml",
		"chart/templates/deployment.yaml: Helm template: render it with helm template and validate the output",
		"chart/templates/plain.yaml",
		"chart/templates/sub/service.yaml: Helm template: render it with helm template and validate the output",
		"chart/values-prod.yaml",
		"chart/values.yaml: Helm chart metadata or values, not a manifest",
		"deploy/kustomization.yaml: kustomization file: render it with kustomize build and validate the output",
		"deploy/widget.yaml",
		"docs/.github-like/notes.yaml",
		"templates/not-a-chart.yaml",
		"values.yaml",
	)

	// Given as files, they are recognised the same way.
	files := []string{filepath.Join(dir, "chart/templates/deployment.yaml"), filepath.Join(dir, ".github/workflows/ci.yml"), filepath.Join(dir, "deploy/widget.yaml")}
	assertWalk(t, dir, files, WalkOptions{SkipRepositoryFiles: true},
		"chart/templates/deployment.yaml: Helm template: render it with helm template and validate the output",
		".github/workflows/ci.yml: GitHub configuration (workflows, templates), not manifests",
		"deploy/widget.yaml",
	)
}

func TestWalkExclude(t *testing.T) {
	dir := filetree.Write(t, map[string]string{
		"a.yaml":                  "",
		"values-prod.yaml":        "",
		"env/prod/values.yaml":    "",
		"env/prod/widget.yaml":    "",
		"env/dev/widget.yaml":     "",
		"vendor/x/deep/thing.yml": "",
	})
	tests := []struct {
		name    string
		exclude []string
		want    []string
	}{
		{"none", nil, []string{"a.yaml", "env/dev/widget.yaml", "env/prod/values.yaml", "env/prod/widget.yaml", "values-prod.yaml", "vendor/x/deep/thing.yml"}},
		{"a name matches at any depth", []string{"values*.yaml"}, []string{"a.yaml", "env/dev/widget.yaml", "env/prod/widget.yaml", "vendor/x/deep/thing.yml"}},
		{"a directory name excludes what is under it", []string{"vendor"}, []string{"a.yaml", "env/dev/widget.yaml", "env/prod/values.yaml", "env/prod/widget.yaml", "values-prod.yaml"}},
		{"a pattern with / matches from the walked path", []string{"env/*/widget.yaml"}, []string{"a.yaml", "env/prod/values.yaml", "values-prod.yaml", "vendor/x/deep/thing.yml"}},
		{"a directory path", []string{"env/prod"}, []string{"a.yaml", "env/dev/widget.yaml", "values-prod.yaml", "vendor/x/deep/thing.yml"}},
		{"* does not cross /", []string{"env/*.yaml"}, []string{"a.yaml", "env/dev/widget.yaml", "env/prod/values.yaml", "env/prod/widget.yaml", "values-prod.yaml", "vendor/x/deep/thing.yml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertWalk(t, dir, []string{dir}, WalkOptions{Exclude: tt.exclude}, tt.want...)
		})
	}

	// A file argument is matched as given.
	assertWalk(t, dir, []string{filepath.Join(dir, "values-prod.yaml"), filepath.Join(dir, "a.yaml")}, WalkOptions{Exclude: []string{"values-*.yaml"}}, "a.yaml")
	if _, err := Walk([]string{dir}, WalkOptions{Exclude: []string{"[a-"}}); err == nil || err.Error() != `exclude pattern "[a-": syntax error in pattern` {
		t.Errorf("bad pattern: err = %v", err)
	}
}

func TestWalkMatchAndHiddenDirectories(t *testing.T) {
	dir := filetree.Write(t, map[string]string{
		"a.yaml":       "",
		"b.test":       "",
		".hidden.test": "",
		".git/c.test":  "",
		"sub/d.test":   "",
	})
	opts := WalkOptions{Match: func(name string) bool { return strings.HasSuffix(name, ".test") }, SkipHiddenDirectories: true}
	// Hidden files are listed, and so is a hidden directory given as a path.
	assertWalk(t, dir, []string{dir}, opts, ".hidden.test", "b.test", "sub/d.test")
	assertWalk(t, dir, []string{filepath.Join(dir, ".git")}, opts, ".git/c.test")
}

func TestIsManifestFile(t *testing.T) {
	for name, want := range map[string]bool{
		"a.yaml":             true,
		"deploy/b.YML":       true,
		"c.Json":             true,
		"d.yaml.bak":         false,
		"Kustomization":      false,
		"dir.yaml/README.md": false,
	} {
		if got := IsManifestFile(name); got != want {
			t.Errorf("IsManifestFile(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := filetree.Write(t, map[string]string{"bin.yaml": "\x7fELF\x00"})
	if err := os.Symlink(filepath.Join(dir, "gone.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"bin.yaml":     "binary data, not a YAML or JSON manifest",
		"link.yaml":    "symbolic link to " + filepath.Join(dir, "gone.yaml") + ", which does not exist",
		"missing.yaml": "no such file or directory",
		"dir.yaml":     "is a directory",
	} {
		p := filepath.Join(dir, name)
		_, err := ReadFile(p)
		var srcErr *SourceError
		if !errors.As(err, &srcErr) || srcErr.Source != p || srcErr.Err.Error() != want {
			t.Errorf("%s: err = %v, want %s: %s", name, err, p, want)
		}
	}
}
