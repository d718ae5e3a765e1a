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
// decode to the same value, and the block parser's field positions must
// be the YAML parser's.
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
	t.Run("repository", func(t *testing.T) { compareFiles(t, repoFiles, false) })

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
			compareFiles(t, files, true)
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
// decodes to), and logs the share the fast path took. Where the fast path
// leaves a document as kubectl writes it to the general decoder, the
// collections inside are compared instead. With generatedCRDs, every CRD
// as written must take the fast path: controller-gen's descriptions are
// literal block scalars and multi-line plain and quoted scalars, which it
// decodes.
func compareFiles(t *testing.T, files []string, generatedCRDs bool) {
	t.Helper()
	var docs, fast, written, writtenFast, positioned int
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		err = manifest.EachPartText(bytes.NewReader(data), file, func(line int, text []byte) error {
			docs++
			where := fmt.Sprintf("%s:%d", file, line)
			if compareDecoders(t, where, text) {
				fast++
			}
			if manifest.ComparePositions(t, where, text) {
				positioned++
			}
			v, err := manifest.DecodeYAMLGeneral(text)
			if err != nil {
				return nil
			}
			if _, ok := manifest.DecodeBlockYAML(text); !ok && generatedCRDs && isCRD(v) {
				t.Errorf("%s: the fast path left a CustomResourceDefinition to the general decoder", where)
			}
			var compareWritten func(sub any)
			compareWritten = func(sub any) {
				out, err := yaml.Marshal(sub)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				written++
				if manifest.ComparePositions(t, fmt.Sprintf("%s as kubectl writes\n%s", where, out), out) {
					positioned++
				}
				if compareDecoders(t, fmt.Sprintf("%s as kubectl writes\n%s", where, out), out) {
					writtenFast++
					return
				}
				for _, c := range collections(sub) {
					compareWritten(c)
				}
			}
			compareWritten(v)
			return nil
		})
		if err != nil {
			// Sources that cannot be read at all (binary, too large) have
			// no documents to compare.
			t.Logf("%s: %v", file, err)
		}
	}
	if positioned == 0 {
		t.Errorf("the block parser gave the positions of none of %d documents in %d files", docs+written, len(files))
	}
	if writtenFast == 0 {
		t.Errorf("the fast path decoded none of %d documents in %d files as kubectl writes them", written, len(files))
	}
	t.Logf("%d files: the fast path decoded %d of %d documents as written, %d of %d as kubectl writes them; the block parser gave the positions of %d", len(files), fast, docs, writtenFast, written, positioned)
}

// isCRD tells a CustomResourceDefinition.
func isCRD(v any) bool {
	m, ok := v.(map[string]any)
	return ok && m["kind"] == "CustomResourceDefinition" && m["apiVersion"] == "apiextensions.k8s.io/v1"
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
