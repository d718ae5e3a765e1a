package policies

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// TestKafkaMetadataVersionRecipe runs the cel recipe that
// docs/guardpolicy.md gives for versions that are not semantic versions
// (Kafka's metadata.version, "4.1-IV1") on pairs of versions, and holds the
// document's copy of the rule equal to the golden case's.
func TestKafkaMetadataVersionRecipe(t *testing.T) {
	file := filepath.Join("testdata", "cel", "kafka-metadata-version", "policy.yaml")
	policy, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "guardpolicy.md"))
	if err != nil {
		t.Fatal(err)
	}
	rule := policy[bytes.Index(policy, []byte("  - name: metadata-version")):]
	if !bytes.Contains(doc, rule) {
		t.Errorf("docs/guardpolicy.md does not quote the rule of %s:\n%s", file, rule)
	}

	gps, err := PoliciesFromDocuments(t.Context(), goldencase.Documents(t, file), nil)
	if err != nil {
		t.Fatal(err)
	}
	engine, err := NewEngine(nil, gps...)
	if err != nil {
		t.Fatal(err)
	}
	object := func(version string) string {
		spec := "spec: {kafka: {}}"
		if version != "" {
			spec = fmt.Sprintf("spec: {kafka: {metadataVersion: %q}}", version)
		}
		return "{apiVersion: kafka.strimzi.io/v1beta2, kind: Kafka, metadata: {name: events, namespace: shop}, " + spec + "}"
	}
	// The finding shows the value at fieldPath, none when it is unset.
	const denied = "may not go down, and must be like 4.1-IV1: was "
	tests := []struct {
		old, cur string
		want     string // the violation, "" when allowed
	}{
		{old: "4.1-IV0", cur: "4.1-IV1"},
		{old: "4.0-IV3", cur: "4.1-IV0"},
		{old: "3.9-IV0", cur: "4.0-IV0"},
		{old: "4.1-IV1", cur: "4.1-IV1"},
		{old: "", cur: "4.1-IV1"},
		{old: "latest", cur: "4.0-IV0"},
		{old: "4.1-IV2", cur: "4.1-IV10"},
		{old: "4.1-IV10", cur: "4.1-IV2", want: `spec.kafka.metadataVersion: Invalid value: "4.1-IV2": ` + denied + "4.1-IV10, now 4.1-IV2"},
		{old: "4.1-IV0", cur: "4.0-IV3", want: `spec.kafka.metadataVersion: Invalid value: "4.0-IV3": ` + denied + "4.1-IV0, now 4.0-IV3"},
		{old: "4.10-IV0", cur: "4.9-IV0", want: `spec.kafka.metadataVersion: Invalid value: "4.9-IV0": ` + denied + "4.10-IV0, now 4.9-IV0"},
		{old: "4.1-IV1", cur: "4.1", want: `spec.kafka.metadataVersion: Invalid value: "4.1": ` + denied + "4.1-IV1, now 4.1"},
		{old: "4.1-IV1", cur: "", want: "spec.kafka.metadataVersion: Invalid value: " + denied + "4.1-IV1, now unset"},
	}
	for _, tt := range tests {
		t.Run(tt.old+" to "+tt.cur, func(t *testing.T) {
			res, err := engine.Evaluate(t.Context(), Request{
				Operation: v1alpha1.Update, Namespace: "shop",
				Object: goldencase.Object(t, object(tt.cur)), OldObject: goldencase.Object(t, object(tt.old)),
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range res.Violations {
				got = append(got, v.Field+": "+v.Message)
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}

// TestLibraryRecipes loads every recipe of docs/policy-library.md (the
// policies for operators whose CRDs the library's tests cannot download)
// and runs the rules that read versions and requests on objects: each
// recipe must load, and do what its comments say.
func TestLibraryRecipes(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "policy-library.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, recipes, found := strings.Cut(string(doc), "\n## Recipes for operators")
	if !found {
		t.Fatal("docs/policy-library.md has no recipes section")
	}
	engines := map[string]*Engine{}
	for i, block := range strings.Split(recipes, "```yaml\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		file := filepath.Join(t.TempDir(), fmt.Sprintf("recipe-%d.yaml", i))
		if err := os.WriteFile(file, []byte(block), 0o644); err != nil {
			t.Fatal(err)
		}
		gps, err := PoliciesFromDocuments(t.Context(), goldencase.Documents(t, file), nil)
		if err != nil {
			t.Fatalf("recipe %d: %v", i, err)
		}
		for _, gp := range gps {
			if engines[gp.Name], err = NewEngine(nil, gp); err != nil {
				t.Fatalf("recipe %s: %v", gp.Name, err)
			}
		}
	}
	var names []string
	for name := range engines {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"cloudnative-pg", "percona-xtradb", "rabbitmq", "strimzi-kafka", "strimzi-node-pools"}; !slices.Equal(names, want) {
		t.Fatalf("recipes %v, want %v", names, want)
	}

	cnpg := func(spec string) string {
		return "{apiVersion: postgresql.cnpg.io/v1, kind: Cluster, metadata: {name: pg, namespace: shop}, spec: " + spec + "}"
	}
	rabbitmq := func(spec string) string {
		return "{apiVersion: rabbitmq.com/v1beta1, kind: RabbitmqCluster, metadata: {name: mq, namespace: shop}, spec: " + spec + "}"
	}
	pxc := func(spec string) string {
		return "{apiVersion: pxc.percona.com/v1, kind: PerconaXtraDBCluster, metadata: {name: db, namespace: shop}, spec: " + spec + "}"
	}
	pool := func(resources string) string {
		return "{apiVersion: kafka.strimzi.io/v1, kind: KafkaNodePool, metadata: {name: brokers, namespace: shop}, spec: {replicas: 3, resources: " + resources + "}}"
	}
	const written = "this policy requires requests for cpu, memory written out (requireRequestsMode: Written), and a limit does not count"
	tests := []struct {
		name, policy, rule string
		old, cur           string // no old object: a CREATE
		want               string // the rule's findings, "" when it has none
	}{
		{
			name: "postgres created with a version tag", policy: "cloudnative-pg", rule: "version-tag",
			cur: cnpg("{imageName: 'ghcr.io/cloudnative-pg/postgresql:17.2-standard-bookworm'}"),
		},
		{
			name: "postgres created with latest", policy: "cloudnative-pg", rule: "version-tag",
			cur:  cnpg("{imageName: 'ghcr.io/cloudnative-pg/postgresql:latest'}"),
			want: `spec.imageName: Invalid value: "ghcr.io/cloudnative-pg/postgresql:latest": image tag latest is not a semantic version, so it carries no version`,
		},
		{
			name: "postgres image to its catalog at the same major", policy: "cloudnative-pg", rule: "no-downgrade",
			old: cnpg("{imageName: 'ghcr.io/cloudnative-pg/postgresql:16.4'}"),
			cur: cnpg("{imageCatalogRef: {apiGroup: postgresql.cnpg.io, kind: ClusterImageCatalog, name: postgresql, major: 16}}"),
		},
		{
			name: "postgres image to a catalog of an older major", policy: "cloudnative-pg", rule: "no-downgrade",
			old:  cnpg("{imageName: 'ghcr.io/cloudnative-pg/postgresql:16.4'}"),
			cur:  cnpg("{imageCatalogRef: {apiGroup: postgresql.cnpg.io, kind: ClusterImageCatalog, name: postgresql, major: 15}}"),
			want: `spec.imageCatalogRef.major: Invalid value: 15: may not be downgraded: was 16.4; allowed: 16.4 or later; 16.4 was read at spec.imageName`,
		},
		{
			name: "postgres catalog to an image two majors up", policy: "cloudnative-pg", rule: "major-upgrades",
			old:  cnpg("{imageCatalogRef: {apiGroup: postgresql.cnpg.io, kind: ClusterImageCatalog, name: postgresql, major: 16}}"),
			cur:  cnpg("{imageName: 'ghcr.io/cloudnative-pg/postgresql:18.1'}"),
			want: `spec.imageName: Invalid value: "ghcr.io/cloudnative-pg/postgresql:18.1": image version 18.1 skips 1 major version (17): was 16; allowed: at most 0 skipped, up to 17.x; 16 was read at spec.imageCatalogRef.major`,
		},
		{
			name: "rabbitmq 3.13 to 4.0", policy: "rabbitmq", rule: "upgrades",
			old: rabbitmq("{image: 'rabbitmq:3.13.7-management'}"),
			cur: rabbitmq("{image: 'rabbitmq:4.0.5-management'}"),
		},
		{
			name: "rabbitmq 3.12 to 4.0", policy: "rabbitmq", rule: "upgrades",
			old:  rabbitmq("{image: 'rabbitmq:3.12.14-management'}"),
			cur:  rabbitmq("{image: 'rabbitmq:4.0.5-management'}"),
			want: `spec.image: Invalid value: "rabbitmq:4.0.5-management": 3.12.14 → 4.0.5 is not an allowed step; go through 3.13.x`,
		},
		{
			name: "rabbitmq default image to an older one", policy: "rabbitmq", rule: "upgrades",
			old:  rabbitmq("{replicas: 3}"),
			cur:  rabbitmq("{replicas: 3, image: 'rabbitmq:3.13.7-management'}"),
			want: `spec.image: Invalid value: "rabbitmq:3.13.7-management": image version 3.13.7 may not be downgraded: was 4.1.0; allowed: 4.1.0 or later; spec.image was not set, so it was defaultVersion 4.1.0`,
		},
		{
			name: "rabbitmq default image to the next series", policy: "rabbitmq", rule: "upgrades",
			old: rabbitmq("{replicas: 3}"),
			cur: rabbitmq("{replicas: 3, image: 'rabbitmq:4.2.1-management'}"),
		},
		{
			name: "mysql 5.7 to 8.0", policy: "percona-xtradb", rule: "mysql-upgrades",
			old: pxc("{crVersion: 1.19.0, pxc: {size: 3, image: 'percona/percona-xtradb-cluster:5.7.44-31.65'}}"),
			cur: pxc("{crVersion: 1.19.0, pxc: {size: 3, image: 'percona/percona-xtradb-cluster:8.0.39-30.1'}}"),
		},
		{
			name: "mysql 5.7 to 8.4", policy: "percona-xtradb", rule: "mysql-upgrades",
			old:  pxc("{crVersion: 1.19.0, pxc: {size: 3, image: 'percona/percona-xtradb-cluster:5.7.44-31.65'}}"),
			cur:  pxc("{crVersion: 1.19.0, pxc: {size: 3, image: 'percona/percona-xtradb-cluster:8.4.7-7.1'}}"),
			want: `spec.pxc.image: Invalid value: "percona/percona-xtradb-cluster:8.4.7-7.1": 5.7.44 → 8.4.7 is not an allowed step; go through 8.0`,
		},
		{
			name: "percona build going down", policy: "percona-xtradb", rule: "mysql-upgrades",
			old:  pxc("{crVersion: 1.19.0, pxc: {size: 3, image: 'percona/percona-xtradb-cluster:8.0.39-30.2'}}"),
			cur:  pxc("{crVersion: 1.19.0, pxc: {size: 3, image: 'percona/percona-xtradb-cluster:8.0.39-30.1'}}"),
			want: `spec.pxc.image: Invalid value: "percona/percona-xtradb-cluster:8.0.39-30.1": image version 8.0.39-30.1 may not be downgraded: was 8.0.39-30.2; allowed: 8.0.39-30.2 or later (build: Ordered)`,
		},
		{
			name: "operator 1.19 with mysql 8.4", policy: "percona-xtradb", rule: "operator-mysql-matrix",
			cur: pxc("{crVersion: 1.19.0, pxc: {size: 3, image: 'percona/percona-xtradb-cluster:8.4.7-7.1'}}"),
		},
		{
			name: "operator 1.19 with mysql 5.7", policy: "percona-xtradb", rule: "operator-mysql-matrix",
			cur:  pxc("{crVersion: 1.19.0, pxc: {size: 3, image: 'percona/percona-xtradb-cluster:5.7.44-31.65'}}"),
			want: `spec.pxc.image: Invalid value: "percona/percona-xtradb-cluster:5.7.44-31.65": image version 5.7.44 is not allowed with spec.crVersion 1.19.0; allowed with 1.19.x: 8.0.x, 8.4.x`,
		},
		{
			name: "node pool requests written out", policy: "strimzi-node-pools", rule: "resources",
			cur: pool("{requests: {cpu: '2', memory: 8Gi}, limits: {memory: 8Gi}}"),
		},
		{
			name: "node pool with limits alone", policy: "strimzi-node-pools", rule: "resources",
			cur: pool("{limits: {cpu: '2', memory: 8Gi}}"),
			want: "spec.resources.requests.cpu: Required value: no cpu request written; " + written + "\n" +
				"spec.resources.requests.memory: Required value: no memory request written; " + written,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Operation: v1alpha1.Create, Namespace: "shop", Object: goldencase.Object(t, tt.cur)}
			if tt.old != "" {
				req.Operation, req.OldObject = v1alpha1.Update, goldencase.Object(t, tt.old)
			}
			res, err := engines[tt.policy].Evaluate(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range res.Violations {
				if v.Policy == tt.policy && v.Rule == tt.rule {
					got = append(got, v.Field+": "+v.Message)
				}
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("%s/%s findings:\n%s\nwant:\n%s", tt.policy, tt.rule, strings.Join(got, "\n"), tt.want)
			}
		})
	}
}
