package manifest_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/manifest"
)

// TestBlockYAMLEqualsGeneralOnRealFiles decodes every document of every
// YAML file of the repository and of the real CRD corpora with both
// decoders: whatever the fast path decodes, the general decoder must
// decode to the same value.
func TestBlockYAMLEqualsGeneralOnRealFiles(t *testing.T) {
	root := corpus.RepositoryRoot()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", "*.yaml", "*.yml").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var repoFiles []string
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		repoFiles = append(repoFiles, filepath.Join(root, name))
	}
	if len(repoFiles) < 100 {
		t.Fatalf("git ls-files found %d YAML files: the repository has hundreds", len(repoFiles))
	}
	t.Run("repository", func(t *testing.T) { compareFiles(t, repoFiles) })

	sets := map[string]corpus.Set{
		"cert-manager":                 corpus.CertManager,
		"gateway-api":                  corpus.GatewayAPI,
		"prometheus-operator":          corpus.PrometheusOperator,
		"prometheus-operator-previous": corpus.PrometheusOperator.Previous(),
		"eck":                          corpus.ECK,
		"mongodb-community":            corpus.MongoDBCommunity,
	}
	for name, set := range sets {
		t.Run(name, func(t *testing.T) {
			path, err := set.Path()
			if err != nil {
				t.Fatal(err)
			}
			files, err := yamlFiles(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) == 0 {
				t.Fatalf("no YAML files in %s", path)
			}
			compareFiles(t, files)
		})
	}
}

// yamlFiles is path itself, or the YAML files below it.
func yamlFiles(path string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); !d.IsDir() && (ext == ".yaml" || ext == ".yml") {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// compareFiles compares the decoders on every document of files, and on
// each document as kubectl writes it (sigs.k8s.io/yaml.Marshal of what it
// decodes to), and logs the share the fast path took. A CRD holds
// descriptions of several lines, which kubectl writes as block scalars,
// and long ones, which it folds: the fast path leaves both to the general
// decoder, so the largest collections in the CRD that it decodes are
// compared instead, which gives it real schemas, patterns and CEL rules.
func compareFiles(t *testing.T, files []string) {
	t.Helper()
	var docs, fast, written, writtenFast int
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		err = manifest.EachPartText(bytes.NewReader(data), file, func(line int, text []byte) error {
			docs++
			if compareDecoders(t, fmt.Sprintf("%s:%d", file, line), text) {
				fast++
			}
			v, err := manifest.DecodeYAMLGeneral(text)
			if err != nil {
				return nil
			}
			var compareWritten func(sub any)
			compareWritten = func(sub any) {
				out, err := yaml.Marshal(sub)
				if err != nil {
					t.Fatalf("%s:%d: %v", file, line, err)
				}
				written++
				if compareDecoders(t, fmt.Sprintf("%s:%d as kubectl writes\n%s", file, line, out), out) {
					writtenFast++
					return
				}
				// Long strings written on several lines: compare the
				// collections inside.
				for _, c := range collections(sub) {
					compareWritten(c)
				}
			}
			singleLineSubtrees(v, compareWritten)
			return nil
		})
		if err != nil {
			// Sources that cannot be read at all (binary, too large) have
			// no documents to compare.
			t.Logf("%s: %v", file, err)
		}
	}
	if writtenFast == 0 {
		t.Errorf("the fast path decoded none of %d documents in %d files as kubectl writes them", written, len(files))
	}
	t.Logf("%d files: the fast path decoded %d of %d documents as written, %d of %d as kubectl writes them", len(files), fast, docs, writtenFast, written)
}

// compareDecoders tells whether the fast path decoded text, failing the
// test unless the general decoder gives the same value.
func compareDecoders(t *testing.T, where string, text []byte) bool {
	t.Helper()
	got, ok := manifest.DecodeBlockYAML(text)
	if !ok {
		return false
	}
	want, err := manifest.DecodeYAMLGeneral(text)
	if err != nil {
		t.Errorf("%s: the fast path decoded what the general decoder refuses: %v", where, err)
	} else if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the fast path decoded\n%#v\nthe general decoder\n%#v", where, got, want)
	}
	return true
}

// singleLineSubtrees calls yield with v when no string in it has a line
// break, else with the largest collections in it of which that is true.
func singleLineSubtrees(v any, yield func(any)) {
	if singleLine(v, yield) {
		yield(v)
	}
}

// singleLine tells whether no string in v has a line break, calling
// yield with the largest collections below v of which that is true when
// it is not true of v.
func singleLine(v any, yield func(any)) bool {
	var children []any
	clean := true
	switch v := v.(type) {
	case string:
		return !strings.Contains(v, "\n")
	case map[string]any:
		for k, c := range v {
			clean = clean && !strings.Contains(k, "\n")
			children = append(children, c)
		}
	case []any:
		children = v
	default:
		return true
	}
	var cleanChildren []any
	for _, c := range children {
		if singleLine(c, yield) {
			cleanChildren = append(cleanChildren, c)
		} else {
			clean = false
		}
	}
	if !clean {
		for _, c := range collections(cleanChildren) {
			yield(c)
		}
	}
	return clean
}

// collections are the maps and lists in v, a map or list.
func collections(v any) []any {
	var values, found []any
	switch v := v.(type) {
	case map[string]any:
		for _, c := range v {
			values = append(values, c)
		}
	case []any:
		values = v
	}
	for _, c := range values {
		switch c.(type) {
		case map[string]any, []any:
			found = append(found, c)
		}
	}
	return found
}
