package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema"
)

// diffSide is OLD or NEW of crdguard diff as given: a file, a directory,
// "-", git:REF:PATH or, for OLD, cluster:[NAME,...], parsed once, so that
// reading it and naming its sources in the report agree.
type diffSide struct {
	// name is "OLD" or "NEW", as notes and errors name the side.
	name, arg string
	// git is the parsed git:REF:PATH, nil for a path.
	git *gitSource
	// cluster says the side is the cluster's CRDs; clusterNames are the
	// names of cluster:NAME,..., nil for cluster:, the cluster's copy of
	// each CRD the other side holds.
	cluster      bool
	clusterNames []string
	// err is why the argument cannot be read as a side.
	err error
}

func newDiffSide(name, arg string) diffSide {
	side := diffSide{name: name, arg: arg}
	if src, ok := parseGitSource(arg); ok {
		side.git = &src
	}
	side.clusterNames, side.cluster, side.err = parseClusterSide(arg)
	return side
}

// origin is where the report names the side's sources from: a tree's
// entries below PATH, a directory's below it.
func (s diffSide) origin() report.Origin {
	if s.cluster {
		return report.Origin{Arg: s.arg, Name: s.arg, EntryPrefix: clusterPrefix}
	}
	if s.git == nil {
		return pathOrigin(s.arg)
	}
	return report.Origin{Arg: s.arg, Name: s.git.base(), EntryPrefix: s.git.entry("").String()}
}

// pathOrigin is a file or directory argument (or "-") as the report names
// the sources read from it: manifest.Expand joins a directory's entries to
// its cleaned path.
func pathOrigin(arg string) report.Origin {
	o := report.Origin{Arg: arg, Name: filepath.Base(arg)}
	if arg == "-" {
		o.Name = arg
	}
	if clean := filepath.Clean(arg); clean != "." {
		o.EntryPrefix = clean + string(filepath.Separator)
	}
	return o
}

// load reads the CRDs of the side. Each must be valid as the API
// server validates a CRD, and a name may appear once. What is not a CRD is
// skipped with a note on stderr, as validate skips what is not a manifest:
// other objects, a kustomization's patches (fragments of a CRD, not CRDs)
// and a chart's Helm templates; a document of kind CustomResourceDefinition
// that is not a valid CRD stays an error.
func (s diffSide) load(ctx context.Context, streams Streams) ([]schema.LocatedCRD, error) {
	var docs []manifest.Document
	var err error
	switch {
	case s.git != nil:
		docs, err = readGit(ctx, *s.git)
	case strings.HasPrefix(s.arg, gitPrefix):
		return nil, fmt.Errorf("%q: want git:REF:PATH", s.arg)
	default:
		docs, err = readDiffFiles(streams, s.name, s.arg)
	}
	if err != nil {
		return nil, err
	}
	for _, doc := range docs {
		if doc.Err == nil && doc.Object.GroupVersionKind().GroupKind() != crdGroupKind {
			fmt.Fprintf(streams.Err, "crdguard: note: %s: skipped %s: %s %s, not a CustomResourceDefinition\n",
				s.name, doc.Position(), doc.Object.GetAPIVersion(), doc.Object.GetKind())
		}
	}
	return schema.LocateCRDs(ctx, docs)
}

var crdGroupKind = apiextensionsv1.Kind("CustomResourceDefinition")

// readDiffFiles reads the manifests of a file or directory argument (or
// stdin), skipping with a note the files that hold no CRD to compare.
func readDiffFiles(streams Streams, side, arg string) ([]manifest.Document, error) {
	sources, err := manifest.Walk([]string{arg}, manifest.WalkOptions{SkipRepositoryFiles: true})
	if err != nil {
		return nil, err
	}
	patches := map[string]string{}
	for _, src := range sources {
		if src.Err == nil && manifest.IsKustomization(src.Path) {
			files, err := manifest.KustomizePatches(src.Path)
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				patches[f] = src.Path
			}
		}
	}
	var docs []manifest.Document
	for _, src := range sources {
		var d []manifest.Document
		switch {
		case src.Err != nil:
			return nil, src.Err
		case manifest.IsKustomization(src.Path):
			continue // kustomize's configuration: never a CRD, and next to most CRD sets
		case src.Skip != "":
			fmt.Fprintf(streams.Err, "crdguard: note: %s: skipped %s: %s\n", side, src.Path, src.Skip)
			continue
		case patches[filepath.Clean(src.Path)] != "":
			fmt.Fprintf(streams.Err, "crdguard: note: %s: skipped %s: a kustomize patch (%s), not a whole CRD: diff the output of kustomize build to include it\n",
				side, src.Path, patches[filepath.Clean(src.Path)])
			continue
		case src.Path == "-":
			d, err = manifest.Read(streams.In, "-")
		default:
			d, err = manifest.ReadFile(src.Path)
		}
		if err != nil {
			return nil, helmTemplateError(src.Path, err)
		}
		for i := range d {
			if d[i].Err != nil && !errors.Is(d[i].Err, manifest.ErrNoTypeMeta) {
				d[i].Err = helmTemplateError(src.Path, d[i].Err)
			}
		}
		docs = append(docs, d...)
	}
	return docs, nil
}

// helmTemplateError names the render step when a file that cannot be read
// holds Helm template actions outside a chart's templates/ directory (a
// deploy/ folder, say), where the walk cannot know it for a template.
func helmTemplateError(path string, err error) error {
	data, readErr := os.ReadFile(path)
	if readErr != nil || !bytes.Contains(data, []byte("{{")) || strings.HasSuffix(err.Error(), manifest.HelmTemplateHint) {
		return err
	}
	return fmt.Errorf("%w (the file holds Helm template actions: render it with helm template and diff the output)", err)
}

// readGit reads src, a file or a directory, through the git CLI in
// the current directory, so that CI can compare with any branch or tag
// without checking it out. Sources are named git:REF:FILE.
func readGit(ctx context.Context, src gitSource) ([]manifest.Document, error) {
	kind, err := git(ctx, "cat-file", "-t", src.object())
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(kind)) == "blob" {
		data, err := git(ctx, "show", src.object())
		if err != nil {
			return nil, err
		}
		return manifest.Read(bytes.NewReader(data), src.String())
	}
	// A tree: its manifests in lexical order, as a directory is walked.
	// --full-tree: without it git filters the listing by the working
	// directory, and a tree from a subdirectory lists nothing.
	list, err := git(ctx, "ls-tree", "-r", "-z", "--full-tree", "--name-only", src.object())
	if err != nil {
		return nil, err
	}
	var docs []manifest.Document
	for name := range strings.SplitSeq(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		if name == "" || !manifest.IsManifestFile(name) {
			continue
		}
		file := src.entry(name)
		data, err := git(ctx, "show", file.object())
		if err != nil {
			return nil, err
		}
		d, err := manifest.Read(bytes.NewReader(data), file.String())
		if err != nil {
			return nil, err
		}
		docs = append(docs, d...)
	}
	return docs, nil
}

// git runs a git command and returns its standard output; a failure carries
// git's own message, which says what is wrong with the ref or path.
func git(ctx context.Context, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return stdout.Bytes(), nil
}
