package policies

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

func TestResources(t *testing.T) { runCases(t, "resources") }

// TestResourcesCompileErrors checks that a misconfigured resources rule
// rejects the policy, every mistake at its exact field.
func TestResourcesCompileErrors(t *testing.T) {
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	place := func(path, container string) v1alpha1.ResourcesPlace {
		return v1alpha1.ResourcesPlace{Path: path, ContainerName: container}
	}
	eck := []v1alpha1.ResourcesPlace{
		place("spec.nodeSets[*].resources", ""),
		place("spec.nodeSets[*].podTemplate.spec.containers[*].resources", "elasticsearch"),
	}
	tests := []struct {
		name string
		cfg  v1alpha1.ResourcesRule
		want []string
	}{{
		name: "valid",
		cfg: v1alpha1.ResourcesRule{
			Preset: v1alpha1.Workloads, ExcludeContainers: []string{"exporter", "filebeat"},
			RequestBounds: []v1alpha1.QuantityBound{{Resource: "memory", Min: q("2Gi")}},
			LimitBounds:   []v1alpha1.QuantityBound{{Resource: "memory", Min: q("2Gi"), Max: q("2Gi")}},
		},
	}, {
		name: "requireAnyOf alone",
		cfg:  v1alpha1.ResourcesRule{RequireAnyOf: []v1alpha1.ResourcesAnyOf{{Paths: eck, Limits: []string{"memory"}}}},
	}, {
		name: "nothing to check",
		cfg:  v1alpha1.ResourcesRule{RequireLimits: []string{"memory"}},
		want: []string{`spec.rules[0].resources.paths: Required value: paths, preset or requireAnyOf is required`},
	}, {
		name: "bad bounds",
		cfg: v1alpha1.ResourcesRule{
			Paths: []string{"spec.resources"},
			RequestBounds: []v1alpha1.QuantityBound{
				{Resource: "memory", Min: q("4Gi"), Max: q("2Gi")},
				{Resource: "memory", Min: q("-1")},
				{Max: q("1")},
				{Resource: "cpu"},
			},
			LimitBounds: []v1alpha1.QuantityBound{{Resource: "cpu", Max: q("-500m")}},
		},
		want: []string{
			`spec.rules[0].resources.requestBounds[0].max: Invalid value: "2Gi": must not be less than min 4Gi`,
			`spec.rules[0].resources.requestBounds[1].resource: Duplicate value: "memory"`,
			`spec.rules[0].resources.requestBounds[1].min: Invalid value: "-1": must not be negative`,
			`spec.rules[0].resources.requestBounds[2].resource: Required value`,
			`spec.rules[0].resources.requestBounds[3]: Required value: min or max is required`,
			`spec.rules[0].resources.limitBounds[0].max: Invalid value: "-500m": must not be negative`,
		},
	}, {
		name: "bad container names, and nothing to exclude from",
		cfg:  v1alpha1.ResourcesRule{Paths: []string{"spec.resources"}, ExcludeContainers: []string{"Exporter", "file_beat", "ok", "ok"}},
		want: []string{
			`spec.rules[0].resources.excludeContainers[0]: Invalid value: "Exporter": is not a container name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			`spec.rules[0].resources.excludeContainers[1]: Invalid value: "file_beat": is not a container name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			`spec.rules[0].resources.excludeContainers[3]: Duplicate value: "ok"`,
			`spec.rules[0].resources.excludeContainers: Forbidden: may only be set with a path through a list ([*]) or a preset: it skips the items of a path's last [*] by name`,
		},
	}, {
		name: "bad requireAnyOf",
		cfg: v1alpha1.ResourcesRule{RequireAnyOf: []v1alpha1.ResourcesAnyOf{
			{Paths: eck[:1], Limits: []string{"memory", "memory", ""}},
			{Paths: []v1alpha1.ResourcesPlace{place("spec.resources", ""), place("spec..x", ""), place("spec.resources", "")}},
			{Paths: []v1alpha1.ResourcesPlace{place("spec.nodeSets[*].resources", "Elasticsearch"), place("spec.nodeSets[*].podTemplate.spec.containers[*].resources", "")}, Requests: []string{"cpu"}},
			{Paths: []v1alpha1.ResourcesPlace{place("spec.nodeSets[*].resources", "elasticsearch"), place("spec.nodeSets[*].podTemplate.spec.containers[*].resources", "")}, Requests: []string{"cpu"}},
			{Paths: []v1alpha1.ResourcesPlace{place("spec.resources", "mysql"), place("spec.proxy.resources", "")}, Limits: []string{"cpu"}},
		}},
		want: []string{
			`spec.rules[0].resources.requireAnyOf[0].paths: Invalid value: 1: must list at least two places; for one, use requireLimits or requireRequests`,
			`spec.rules[0].resources.requireAnyOf[0].limits[1]: Duplicate value: "memory"`,
			`spec.rules[0].resources.requireAnyOf[0].limits[2]: Required value: a resource name, like memory`,
			`spec.rules[0].resources.requireAnyOf[1].limits: Required value: limits or requests is required`,
			`spec.rules[0].resources.requireAnyOf[1].paths[1].path: Invalid value: "spec..x": empty field name at ".x"`,
			`spec.rules[0].resources.requireAnyOf[1].paths[2]: Duplicate value: "spec.resources"`,
			`spec.rules[0].resources.requireAnyOf[2].paths[0].containerName: Invalid value: "Elasticsearch": is not a container name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			`spec.rules[0].resources.requireAnyOf[3].paths[0].containerName: Invalid value: "elasticsearch": selects an item of the path's last [*], and spec.nodeSets[*].resources has none after the prefix the paths share (spec.nodeSets[*])`,
			`spec.rules[0].resources.requireAnyOf[4].paths[0].containerName: Invalid value: "mysql": selects an item of the path's last [*], and spec.resources has none after the prefix the paths share (no list)`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			assertPolicyErrors(t, mysqlPolicy(v1alpha1.Rule{Name: "resources", Resources: &cfg}), nil, tt.want)
		})
	}
}

// TestExcludeContainersAgainstSchema: with the CRDs loaded, a path whose
// last [*] reaches items without a name cannot exclude any of them, which
// is an error at the path rather than an exclusion that does nothing.
func TestExcludeContainersAgainstSchema(t *testing.T) {
	schemas, err := schema.RegistryFromFiles(t.Context(), filepath.Join("testdata", "transitions", "volume-claim-templates", "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := v1alpha1.ResourcesRule{
		Paths:             []string{"spec.resources", "spec.volumeClaimTemplates[*].spec.resources"},
		ExcludeContainers: []string{"exporter"},
	}
	assertPolicyErrors(t, mysqlPolicy(v1alpha1.Rule{Name: "resources", Resources: &cfg}), schemas, []string{
		`spec.rules[0].resources.paths[1]: Invalid value: "spec.volumeClaimTemplates[*].spec.resources": the items of spec.volumeClaimTemplates in MySQLCluster have no name field, so excludeContainers cannot skip any of them`,
	})
}

// TestResourcesSchemaErrors: what the GuardPolicy CRD rejects when a
// policy file loads (bad quantities, empty or too short lists), with the
// file, the policy and each field path.
func TestResourcesSchemaErrors(t *testing.T) {
	const policy = `apiVersion: crdguard.dev/v1alpha1
kind: GuardPolicy
metadata: {name: p}
spec:
  match: {resources: [{group: db.example.io, kinds: [MySQLCluster]}]}
  rules:
  - name: resources
    resources:
      paths: [spec.resources]
      requestBounds:
      - {resource: memory, min: 2GB}
      - {resource: cpu}
      limitBounds:
      - {resource: memory, max: lots}
      requireAnyOf:
      - paths: [{path: spec.resources}]
      - paths: [{path: spec.resources}, {path: spec.proxy.resources}]
`
	docs, err := manifest.Read(strings.NewReader(policy), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = PoliciesFromDocuments(t.Context(), docs, nil)
	if err == nil {
		t.Fatal("policy loaded")
	}
	quantityPattern := `'^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$'`
	want := `policy.yaml:1 (document 1): GuardPolicy "p" is invalid: [` + strings.Join([]string{
		`spec.rules[0].resources.limitBounds[0].max: Invalid value: "lots": spec.rules[0].resources.limitBounds[0].max in body should match ` + quantityPattern,
		`spec.rules[0].resources.requestBounds[0].min: Invalid value: "2GB": spec.rules[0].resources.requestBounds[0].min in body should match ` + quantityPattern,
		`spec.rules[0].resources.requestBounds[1]: Invalid value: min or max is required`,
		`spec.rules[0].resources.requireAnyOf[0]: Invalid value: limits or requests is required`,
		`spec.rules[0].resources.requireAnyOf[0].paths: Invalid value: 1: spec.rules[0].resources.requireAnyOf[0].paths in body should have at least 2 items`,
		`spec.rules[0].resources.requireAnyOf[1]: Invalid value: limits or requests is required`,
	}, ", ") + "]"
	if err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}
