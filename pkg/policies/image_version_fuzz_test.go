package policies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/distribution/reference"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// FuzzImageVersion evaluates the imageVersion rule, under each compare
// mode, on an object with an arbitrary version and image reference (in
// imagePaths and in a container list): it must never fail or panic, and an
// image tagged exactly with the declared version always agrees with it.
func FuzzImageVersion(f *testing.F) {
	for _, seed := range [][2]string{
		{"8.0.36", "mysql:8.0.36"},
		{"8.0.36", "mysql:8.0.36-debian12"},
		{"8.0.36", "mysql:8.4.0"},
		{"8.0", "registry.local:5000/db/mysql:8.0"},
		{"v1.2.3-rc.1+build.5", "ghcr.io/acme/db:v1.2.3-rc.1_build.5"},
		{"8", "mysql"},
		{"8.0.36", "mysql@sha256:" + strings.Repeat("ab", 32)},
		{"8.0.36", "mysql:8.0.36@sha256:" + strings.Repeat("cd", 32)},
		{"", "UPPER/case:tag"},
		{"01.2", "mysql:01.2"},
		{"8.0.36", "mysql::8"},
		{"8.0.36", "db:8.0.36"},
		{"16_beta-x", "db:16_beta-x"},
	} {
		f.Add(seed[0], seed[1])
	}
	engine := imageVersionEngine(f)
	f.Fuzz(func(t *testing.T, version, image string) {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "db.example.io/v1",
			"kind":       "MySQLCluster",
			"metadata":   map[string]any{"name": "fuzz", "namespace": "shop"},
			"spec": map[string]any{
				"version":    version,
				"image":      image,
				"containers": []any{map[string]any{"name": "mysql", "image": image}},
			},
		}}
		res, err := engine.Evaluate(t.Context(), Request{Operation: v1alpha1.Create, Object: obj})
		if err != nil {
			t.Fatalf("version %q, image %q: %v", version, image, err)
		}
		// "db:<version>" tagged with exactly the version agrees under
		// Exact and TagPrefix whatever the version looks like.
		if !strings.HasPrefix(image, "db:") || image[len("db:"):] != version || version == "" {
			return
		}
		ref, err := reference.ParseNormalizedNamed(image)
		if err != nil {
			return
		}
		if tagged, ok := ref.(reference.Tagged); !ok || tagged.Tag() != version {
			return
		}
		for _, v := range res.Violations {
			if v.Policy != "images-semver" {
				t.Errorf("version %q, image %q: %s/%s: %s", version, image, v.Policy, v.Rule, v.Message)
			}
		}
	})
}

// imageVersionEngine has one imageVersion policy per compare mode.
func imageVersionEngine(f *testing.F) *Engine {
	var gps []*v1alpha1.GuardPolicy
	for _, compare := range []string{"Exact", "TagPrefix", "Semver"} {
		doc := fmt.Sprintf(`apiVersion: crdguard.dev/v1alpha1
kind: GuardPolicy
metadata:
  name: images-%s
spec:
  match:
    resources:
    - group: db.example.io
      kinds: [MySQLCluster]
  rules:
  - name: image-version
    imageVersion:
      versionPath: spec.version
      imagePaths: [spec.image]
      containersPath: spec.containers
      compare: %s
`, strings.ToLower(compare), compare)
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			f.Fatal(err)
		}
		gp, errs := PolicyFromObject(f.Context(), obj, nil)
		if len(errs) > 0 {
			f.Fatal(errs.ToAggregate())
		}
		gps = append(gps, gp)
	}
	engine, err := NewEngine(nil, gps...)
	if err != nil {
		f.Fatal(err)
	}
	return engine
}
