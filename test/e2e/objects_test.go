package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// document is one object of a manifest file, split the way kubectl splits
// multi-document YAML.
type document struct {
	raw []byte
	obj *unstructured.Unstructured
}

// readDocuments splits file into its non-empty documents.
func readDocuments(t *testing.T, file string) []document {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var docs []document
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(m) == 0 {
			continue // only comments
		}
		docs = append(docs, document{raw: raw, obj: &unstructured.Unstructured{Object: m}})
	}
	return docs
}

// manifestFiles lists the .yaml files under dir, recursively, in lexical order.
func manifestFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no manifests under %s", dir)
	}
	return files
}

// fileTargets makes a create target of every object in files whose kind the
// cluster serves. Objects without a namespace go to defaultNS. It returns
// the targets and the objects it left out, and creates the namespaces the
// targets need.
func fileTargets(t *testing.T, prefix, set, base string, files []string, defaultNS string) (targets []*target, skipped []string) {
	t.Helper()
	namespaces := map[string]bool{}
	for _, file := range files {
		docs := readDocuments(t, file)
		rel, err := filepath.Rel(base, file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range docs {
			obj := doc.obj
			gvk := obj.GroupVersionKind()
			namespaced, served := cluster.served[gvk]
			name := obj.GetName()
			if name == "" {
				name = obj.GetGenerateName()
			}
			label := prefix + "/" + strings.TrimSuffix(rel, filepath.Ext(rel))
			if len(docs) > 1 {
				label += fmt.Sprintf("#%d-%s-%s", i, strings.ToLower(gvk.Kind), name)
			}
			if !served {
				skipped = append(skipped, fmt.Sprintf("%s (%s)", label, gvk.GroupVersion().WithKind(gvk.Kind)))
				continue
			}
			tg := &target{
				name:   label,
				set:    set,
				source: file,
				key:    objectKey{file, obj.GetAPIVersion(), gvk.Kind, name},
				file:   file,
			}
			if obj.GetName() == "" {
				tg.generateName = obj.GetGenerateName()
			}
			if len(docs) > 1 {
				tg.file = writeTemp(t, filepath.Base(file), doc.raw)
			}
			if namespaced {
				if ns := obj.GetNamespace(); ns != "" {
					namespaces[ns] = true
				} else {
					tg.namespace = defaultNS
					namespaces[defaultNS] = true
				}
			}
			targets = append(targets, tg)
		}
	}
	for ns := range namespaces {
		ensureNamespaces(t, ns)
	}
	sortTargets(targets)
	return targets, skipped
}
