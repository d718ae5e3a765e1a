package vap

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
	"github.com/crdguard/crdguard/pkg/schema"
)

// parsePolicy reads a GuardPolicy from YAML, strictly, as a test writes
// it out.
func parsePolicy(t *testing.T, policyYAML string) *v1alpha1.GuardPolicy {
	t.Helper()
	gp := &v1alpha1.GuardPolicy{}
	if err := yaml.UnmarshalStrict([]byte(policyYAML), gp); err != nil {
		t.Fatal(err)
	}
	return gp
}

// assertVAPParity compiles policy and checks, for each request, that the
// compiled policy's findings equal the engine's exactly, but for the
// documented differences (engine finding, compiled finding); it returns
// the number of findings compared, so a table cannot pass by finding
// nothing.
func assertVAPParity(t *testing.T, policyYAML string, differences [][2]string, reqs ...policies.Request) int {
	t.Helper()
	gp := parsePolicy(t, policyYAML)
	engine, err := policies.NewEngine(nil, gp)
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := Compile(gp, nil, Findings)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range compiled.Rules {
		if r.Webhook != "" {
			t.Fatalf("rule %s stays with the webhook: %s", r.Name, r.Webhook)
		}
	}
	total := 0
	runner := newVAPRunner(t, compiled)
	for i, req := range reqs {
		res, err := engine.Evaluate(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		got := runner.run(t, t.Context(), &req)
		if len(got.errors) > 0 {
			t.Errorf("request %d: compiled policy failed to evaluate: %v", i, got.errors)
		}
		want, have := sortedStrings(engineFindings(res, compiled)), sortedStrings(got.findings)
		for _, d := range differences {
			if i := slices.Index(want, d[0]); i >= 0 {
				want[i] = d[1]
				slices.Sort(want)
			}
		}
		if !slices.Equal(want, have) {
			t.Errorf("request %d: findings differ\n--- engine\n%s\n--- vap\n%s", i, strings.Join(want, "\n"), strings.Join(have, "\n"))
		}
		total += len(want)
	}
	return total
}

// TestVAPRatioBoundaries decides limit/request at and around the band's
// bounds with cpu in millis and memory in binary and decimal suffixes:
// the compiled policy must agree with the engine's exact rationals.
func TestVAPRatioBoundaries(t *testing.T) {
	const policy = `
metadata: {name: ratios}
spec:
  match: {resources: [{group: db.example.io, kinds: [MySQLCluster]}]}
  rules:
  - name: exclusive
    resources:
      paths: [spec.resources]
      ratios:
      - {resource: cpu, min: "1.5", minExclusive: true, max: "4", maxExclusive: true}
      - {resource: memory, min: "1.5", minExclusive: true, max: "4", maxExclusive: true}
  - name: inclusive
    resources:
      paths: [spec.resources]
      ratios:
      - {resource: cpu, min: "1.5", max: "4"}
      - {resource: memory, min: "1.5", max: "4"}
  - name: thirds
    resources:
      paths: [spec.resources]
      ratios:
      - {resource: cpu, min: "1.25", max: "3.3333"}
  - name: ceiling
    resources:
      paths: [spec.resources]
      ratios:
      - {resource: cpu, max: "2"}
  - name: floor
    resources:
      paths: [spec.resources]
      ratios:
      - {resource: cpu, min: "2"}
`
	pairs := [][2]string{ // request, limit
		{"1", "1500m"}, {"250m", "1"}, {"1", "4"}, {"100m", "0.15"}, {"1", "1501m"}, {"1", "1499m"},
		{"1", "3999m"}, {"1", "4001m"}, {"0", "1"}, {"0", "0"}, {"3", "10"}, {"1000m", "1.25"},
		{"2", "3"}, {"1m", "4m"}, {"1n", "6n"}, {"1e3", "1.5e3"}, {"1", "3.3333"}, {"1", "3.33331"},
		// Inside a bound by less than the float test's margin, and
		// negative: decided by the exact test.
		{"1000000000", "1500000001"}, {"1000000000", "3999999999"}, {"-1", "-2"}, {"1E", "2E"},
		// A zero request makes the float ratio infinite or NaN.
		{"0", "-1"}, {"-1", "1"}, {"0", "-0"},
	}
	memory := [][2]string{
		{"1Gi", "4Gi"}, {"1Gi", "1536Mi"}, {"1G", "4Gi"}, {"1Gi", "4G"}, {"1000M", "1G"}, {"1Gi", "1.5Gi"},
		{"1G", "1500M"}, {"512Mi", "2Gi"}, {"1Ki", "1537"}, {"1Ki", "1536"}, {"1M", "4Mi"},
	}
	var reqs []policies.Request
	for i, cpu := range pairs {
		mem := memory[i%len(memory)]
		if i < len(memory) {
			mem = memory[i]
		}
		reqs = append(reqs, policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, fmt.Sprintf(`
apiVersion: db.example.io/v1
kind: MySQLCluster
metadata: {name: c%d, namespace: shop}
spec:
  resources:
    requests: {cpu: %q, memory: %q}
    limits: {cpu: %q, memory: %q}
`, i, cpu[0], mem[0], cpu[1], mem[1]))})
	}
	// Numbers as the API server stores an unquoted YAML number.
	reqs = append(reqs, policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `
apiVersion: db.example.io/v1
kind: MySQLCluster
metadata: {name: numbers, namespace: shop}
spec:
  resources:
    requests: {cpu: 2, memory: 1000}
    limits: {cpu: 3, memory: 4000.5}
`)})
	if n := assertVAPParity(t, policy, nil, reqs...); n < 20 {
		t.Errorf("only %d findings compared; the table should produce more", n)
	}
}

// TestVAPRequirements covers required requests and limits, and values
// that are not quantities.
func TestVAPRequirements(t *testing.T) {
	const policy = `
metadata: {name: required}
spec:
  match: {resources: [{kinds: ["*"]}]}
  rules:
  - name: required
    resources:
      paths: [spec.resources, "spec.containers[*].resources", spec.sidecar.resources]
      requireRequests: [cpu, memory]
      requireLimits: [memory]
`
	// CEL has no JSON encoder: a list shows as […].
	differences := [][2]string{{
		`spec.containers[1].resources.limits.memory [required/required] Deny: Invalid value: [1]: must be a quantity`,
		`spec.containers[1].resources.limits.memory [required/required] Deny: Invalid value: […]: must be a quantity`,
	}}
	n := assertVAPParity(t, policy, differences,
		policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: a}, spec: {resources: {requests: {cpu: "1"}}}}`)},
		policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: b}, spec: {containers: [{name: x}, {name: y, resources: {requests: {cpu: bad, memory: 1Gi}, limits: {memory: [1]}}}], sidecar: {}}}`)},
		policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: c}, spec: {resources: {requests: "lots", limits: {memory: 1Gi, cpu: 1.5.5}}}}`)},
		policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: d}, spec: {resources: 5}}`)},
	)
	if n < 8 {
		t.Errorf("only %d findings compared", n)
	}
}

// TestVAPResourceBoundsAndAnyOf covers quantity bounds at their edges
// and in numbers, exclusions of items that are not named containers, and
// requireAnyOf places that hold no valid quantity.
func TestVAPResourceBoundsAndAnyOf(t *testing.T) {
	const policy = `
metadata: {name: bounded}
spec:
  match: {resources: [{kinds: ["*"]}]}
  rules:
  - name: bounds
    resources:
      paths: [spec.resources, "spec.containers[*].resources"]
      excludeContainers: [exporter]
      requestBounds:
      - {resource: memory, min: 2Gi}
      - {resource: cpu, min: 500m, max: "2"}
      limitBounds:
      - {resource: memory, max: 1E}
      - {resource: cpu, min: "1", max: "1"}
  - name: any-of
    resources:
      requireAnyOf:
      - paths:
        - path: "spec.sets[*].resources"
        - path: "spec.sets[*].pod.containers[*].resources"
          containerName: main
        limits: [memory]
        requests: [cpu]
      - paths:
        - path: spec.resources
        - path: spec.other.resources
        limits: [cpu]
`
	n := assertVAPParity(t, policy, nil,
		policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: a}, spec: {resources: {requests: {cpu: 500m, memory: 2147483648}, limits: {cpu: 1, memory: 1E}}}}`)},
		policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: b}, spec: {resources: {requests: {cpu: 2.5, memory: 2147483647}, limits: {cpu: 999m, memory: 2E}}}}`)},
		policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: c}, spec: {containers: [{name: exporter, resources: {limits: {cpu: 9}}}, {name: 7, resources: {limits: {cpu: 9}}}, "x", {resources: {limits: {memory: 1Mi}}}]}}`)},
		policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: d}, spec: {other: {resources: {limits: {cpu: bad}}}, sets: [
		  {resources: {limits: {memory: bad}, requests: {cpu: 1}}},
		  {resources: 5, pod: {containers: {name: main}}},
		  {pod: {containers: [{name: main, resources: {limits: {memory: 1Gi, cpu: "1"}}}]}},
		  {pod: {containers: [{name: side, resources: {limits: {memory: 1Gi}}}, "main", {name: main}]}},
		  "x", {}]}}`)},
		policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: e}, spec: {sets: [], other: {resources: {limits: {cpu: 1}}}}}`)},
	)
	if n < 12 {
		t.Errorf("only %d findings compared", n)
	}
}

// TestVAPImageReferences parses image references in CEL as
// distribution/reference does: digests, registries with ports (IPv6
// too), missing tags, and each compare mode.
func TestVAPImageReferences(t *testing.T) {
	images := []string{
		"mysql:8.0.36", "mysql", "mysql:latest", "registry.local:5000/mysql", "registry.local:5000/mysql:8.0.36",
		"registry.local:5000/team/mysql:8.0.35", "[::1]:5000/mysql:8.0.36", "localhost/mysql:8.0.36-debian12",
		"mysql@sha256:" + strings.Repeat("ab", 32), "mysql:8.0.36@sha256:" + strings.Repeat("cd", 32),
		"registry.local:5000/mysql@sha256:" + strings.Repeat("ef", 32), "docker.io/library/mysql:v8.0.36",
		"mysql:8.0.36_build.7", "mysql:8.0", "mysql:8.0.360", "mysql:8.0.36-rc.1", "mysql::8", "mysql:8.0.36:9",
		"ghcr.io/org/mysql:8.0.36+meta",
	}
	var body strings.Builder
	for i, img := range images {
		fmt.Fprintf(&body, "    - %q\n", img)
		_ = i
	}
	var reqs []policies.Request
	for _, version := range []string{`"8.0.36"`, `"v8.0.36"`, `"8.0"`, `8`, `"8.0.36-rc.1"`, `"latest"`, `"8.0.x"`} {
		reqs = append(reqs, policies.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, fmt.Sprintf(`
apiVersion: db.example.io/v1
kind: MySQLCluster
metadata: {name: c, namespace: shop}
spec:
  version: %s
  images:
%s  containers:
  - {name: mysql, image: "mysql:8.0.36"}
  - {name: sidecar, image: "busybox"}
  - {name: exporter, image: "exporter@sha256:%s"}
`, version, body.String(), strings.Repeat("12", 32)))})
	}
	for _, compare := range []string{"Exact", "Semver", "TagPrefix"} {
		t.Run(compare, func(t *testing.T) {
			policy := fmt.Sprintf(`
metadata: {name: images}
spec:
  match: {resources: [{group: db.example.io, kinds: [MySQLCluster]}]}
  rules:
  - name: listed
    imageVersion: {versionPath: spec.version, imagePaths: ["spec.images[*]"], compare: %[1]s}
  - name: containers
    imageVersion: {versionPath: spec.version, containersPath: spec.containers, excludeContainers: [sidecar], compare: %[1]s, digestOnly: Warn}
  - name: named
    imageVersion: {versionPath: spec.version, containersPath: spec.containers, containerName: db, compare: %[1]s}
`, compare)
			if n := assertVAPParity(t, policy, nil, reqs...); n < 30 {
				t.Errorf("only %d findings compared", n)
			}
		})
	}
}

// TestVAPTransitions covers every check on UPDATE, with versions and
// quantities at their edges.
func TestVAPTransitions(t *testing.T) {
	const policy = `
metadata: {name: updates}
spec:
  match: {resources: [{kinds: ["*"]}]}
  rules:
  - name: updates
    transitions:
    - {path: spec.version, check: NoDowngrade}
    - {path: spec.version, check: MaxMinorSkip, maxMinorSkip: 1}
    - {path: spec.size, check: NoDecrease}
    - {path: spec.cap, check: NoIncrease}
    - {path: spec.class, check: Immutable}
    - {path: "spec.labels[tier]", check: Immutable}
    - {path: spec.users, check: NoRemoval}
    - {path: spec.zones, check: NoRemoval, keys: [region, zone]}
    - {path: spec.labels, check: NoRemoval}
    - {path: spec.owner, check: NoRemoval}
    - {path: "spec.nodes[1]", check: Immutable}
    - {path: "spec.zones[*].zone", check: Immutable, keys: [region]}
    - {path: "spec.users[*].name", check: Immutable}
`
	old := `{apiVersion: v1, kind: Thing, metadata: {name: a}, spec: {version: %s, size: %s, cap: %s, class: fast,
  labels: {tier: gold, app: db}, users: [{name: root}, {name: app}, {id: 7}, ops, 3], owner: team,
  zones: [{region: eu, zone: a}, {region: eu, zone: b}], nodes: [n0, n1]}}`
	cur := `{apiVersion: v1, kind: Thing, metadata: {name: a}, spec: {version: %s, size: %s, cap: %s, class: %s,
  labels: {tier: %s}, users: [{name: app}, 3], zones: [{region: eu, zone: b}], nodes: [n0]}}`
	type edit struct{ oldVersion, newVersion, oldSize, newSize, oldCap, newCap, class, tier string }
	edits := []edit{
		{`"8.0.36"`, `"8.0.35"`, `10Gi`, `9Gi`, `100`, `101`, `slow`, `silver`},
		{`"8.0"`, `"8.3.1"`, `1Gi`, `1024Mi`, `1.5`, `"1500m"`, `fast`, `gold`},
		{`"v1.2.3"`, `"2.0.0"`, `1G`, `999M`, `"2"`, `3`, `fast`, `gold`},
		{`"1.2.3-rc.1"`, `"1.2.3-beta.2"`, `5`, `4.5`, `1k`, `1001`, `fast`, `gold`},
		{`"1.2.3"`, `"1.10.0"`, `5`, `lots`, `junk`, `1`, `fast`, `gold`},
		{`"1.2.3"`, `"banana"`, `5`, `5`, `1`, `1`, `fast`, `gold`},
		{`8`, `"8.2"`, `5`, `5`, `1`, `1`, `fast`, `gold`},
		{`"1.2.3"`, `"1.20.0"`, `5`, `5`, `1`, `1`, `fast`, `gold`},
		{`"1.2.3+build.1"`, `"1.2.3"`, `5`, `5`, `1`, `1`, `fast`, `gold`},
		{`"bad"`, `"1.0.0"`, `5`, `5`, `1`, `1`, `fast`, `gold`},
	}
	var reqs []policies.Request
	for _, e := range edits {
		reqs = append(reqs, policies.Request{
			Operation: v1alpha1.Update,
			OldObject: goldencase.Object(t, fmt.Sprintf(old, e.oldVersion, e.oldSize, e.oldCap)),
			Object:    goldencase.Object(t, fmt.Sprintf(cur, e.newVersion, e.newSize, e.newCap, e.class, e.tier)),
		})
	}
	if n := assertVAPParity(t, policy, nil, reqs...); n < 60 {
		t.Errorf("only %d findings compared", n)
	}
}

// TestVAPSemverRegexp holds semverStrictRE, which compiled rules use, to
// rules.ParseSemanticVersion, which the engine uses.
func TestVAPSemverRegexp(t *testing.T) {
	for _, v := range []string{
		"1", "1.2", "1.2.3", "v1.2.3", "01.2.3", "1.02", "1.2.3-rc.1", "1.2.3-rc.01", "1.2.3-0", "1.2.3-00",
		"1.2.3-", "1.2.3+", "1.2.3+b.1", "1.2.3+b..1", "1.2-rc1", "1-rc1", "1.2.3-rc_1", "1.2.3.4", "v", "",
		"1.2.3-alpha-1.x", "1.2.3+001", "1.2.3-01a", "V1.2.3", "1.2.3-rc.1+build.5",
	} {
		_, err := rules.ParseSemanticVersion(v)
		if matched := semverStrictRegexp.MatchString(v); matched != (err == nil) {
			t.Errorf("%q: semverStrictRE matches %v, rules.ParseSemanticVersion error %v", v, matched, err)
		}
	}
}

// TestVAPRuleListing lists where each rule of the example policy runs,
// with the reason for each that stays with the webhook.
func TestVAPRuleListing(t *testing.T) {
	docs := goldencase.Documents(t, example+"/policy.yaml")
	gps, err := policies.PoliciesFromDocuments(t.Context(), docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := Compile(gps[0], nil, Findings)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range compiled.Rules {
		where := cmp.Or(r.Webhook, "vap")
		if r.Mutation {
			where = "mutating"
		}
		got = append(got, fmt.Sprintf("%s (%s): %s", r.Name, r.Kind, where))
	}
	want := []string{
		"resources (resources): vap",
		"default-cpu-limit (defaults): mutating",
		"image-version (imageVersion): vap",
		"safe-updates (transitions): vap",
		"protect-data (deletion): the policy has approvers and the rule runs on DELETE: a deletion is approved with the stored crdguard.dev/approve and its crdguard.dev/last-approval record, which needs the webhook",
		"production-replicas (cel): vap",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rules\n got: %q\nwant: %q", got, want)
	}
	var names []string
	for i, vap := range compiled.Policies {
		names = append(names, vap.Name+" "+string(compiled.Bindings[i].Spec.ValidationActions[0]))
	}
	if want := []string{"crdguard-mysql-safety-deny Deny", "crdguard-mysql-safety-warn Warn"}; !slices.Equal(names, want) {
		t.Errorf("policies = %q, want %q", names, want)
	}
}

var semverStrictRegexp = regexp.MustCompile(semverStrictRE)

// TestVAPWebhookPolicy keeps for the webhook exactly the rules that did
// not compile and the compiled ones whose approvals it records.
func TestVAPWebhookPolicy(t *testing.T) {
	gps, err := policies.PoliciesFromDocuments(t.Context(), goldencase.Documents(t, example+"/policy.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	gp := gps[0]
	compiled, err := Compile(gp, nil, Findings)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range compiled.WebhookPolicy(gp).Spec.Rules {
		got = append(got, r.Name)
	}
	if want := []string{"resources", "default-cpu-limit", "image-version", "safe-updates", "protect-data"}; !slices.Equal(got, want) {
		t.Errorf("webhook rules = %q, want %q", got, want)
	}
	if len(gp.Spec.Rules) != 6 {
		t.Errorf("the policy itself changed: %d rules", len(gp.Spec.Rules))
	}
	gp.Spec.Approvers = nil
	gp.Spec.Rules = slices.DeleteFunc(gp.Spec.Rules, func(r v1alpha1.Rule) bool { return r.Defaults != nil })
	if compiled, err = Compile(gp, nil, Findings); err != nil {
		t.Fatal(err)
	}
	if p := compiled.WebhookPolicy(gp); p != nil {
		t.Errorf("every rule compiles without approvers and defaults, yet the webhook keeps %d", len(p.Spec.Rules))
	}
}

// TestVAPEmptyApprovers: "approvers: {}" lists nobody, so as for the
// engine and its routes the policy has no approvers, and it compiles what
// it compiles without them, its Deny deletion rule included.
func TestVAPEmptyApprovers(t *testing.T) {
	gps, err := policies.PoliciesFromDocuments(t.Context(), goldencase.Documents(t, example+"/policy.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	without, empty := gps[0].DeepCopy(), gps[0].DeepCopy()
	without.Spec.Approvers = nil
	empty.Spec.Approvers = &v1alpha1.Approvers{}
	want, err := Compile(without, nil, Findings)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Compile(empty, nil, Findings)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Rules, want.Rules) {
		t.Errorf("rules\n got: %+v\nwant: %+v", got.Rules, want.Rules)
	}
	gotYAML, err := yaml.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wantYAML, err := yaml.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := strings.Split(string(gotYAML), "\n"), strings.Split(string(wantYAML), "\n")
	for i := range max(len(gotLines), len(wantLines)) {
		if g, w := lineAt(gotLines, i), lineAt(wantLines, i); g != w {
			t.Errorf("compiled objects differ at line %d of their YAML\n got: %s\nwant: %s", i+1, g, w)
			break
		}
	}
}

// lineAt is lines[i], or "" past the end.
func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// TestVAPImageTagTransitions covers the version checks on image tags:
// registry ports, digests, variants, "v" prefixes and references that
// carry no version, on both sides of an update.
func TestVAPImageTagTransitions(t *testing.T) {
	const policy = `
metadata: {name: images}
spec:
  match: {resources: [{kinds: ["*"]}]}
  rules:
  - name: images
    transitions:
    - {path: spec.image, check: NoDowngrade, imageTag: {}}
    - {path: spec.image, check: MaxMinorSkip, maxMinorSkip: 1, imageTag: {}}
    - {path: spec.image, check: MaxMajorSkip, maxMajorSkip: 0, imageTag: {}}
    - {path: spec.other, check: MaxMinorSkip, maxMinorSkip: 0, maxMajorSkip: 1, imageTag: {}}
`
	digest := "@sha256:" + strings.Repeat("ab", 32)
	pairs := [][2]string{
		{"postgres:16.4", "postgres:16.2"},
		{"postgres:16.4", "postgres:17.0"},
		{"postgres:16.4", "postgres:19.0"},
		{"postgres:16.4", "postgres:16.9"},
		{"registry.local:5000/postgres:16.4-bookworm", "registry.local:5000/postgres:16.3-bookworm"},
		{"registry.local:5000/postgres:16.4", "registry.local:5000/postgres"},
		{"postgres:v16.4" + digest, "postgres:16.4"},
		{"postgres:16.4", "postgres" + digest},
		{"postgres:16.4", "postgres:16.4" + digest},
		{"postgres:16.4", "postgres:bookworm"},
		{"postgres:16.4", "postgres:16.4_build.1"},
		{"postgres", "postgres:1.0"},
		{"postgres" + digest, "postgres:1.0"},
		{"postgres:latest", "postgres:1.0"},
		{"[::1]:5000/postgres:3.1", "[::1]:5000/postgres:3.20"},
		{"rabbitmq:3.13.7-management", "rabbitmq:4.0.5-management"},
		{"rabbitmq:3.13.7-management", "rabbitmq:4.2.0-management"},
		{"rabbitmq:1.0", "rabbitmq:12.9"},
		{"rabbitmq:4.0", "rabbitmq:3.13"},
	}
	var reqs []policies.Request
	for _, p := range pairs {
		obj := `{apiVersion: v1, kind: Thing, metadata: {name: a}, spec: {image: %q, other: %q}}`
		reqs = append(reqs, policies.Request{
			Operation: v1alpha1.Update,
			OldObject: goldencase.Object(t, fmt.Sprintf(obj, p[0], p[0])),
			Object:    goldencase.Object(t, fmt.Sprintf(obj, p[1], p[1])),
		})
	}
	reqs = append(reqs, policies.Request{
		Operation: v1alpha1.Update,
		OldObject: goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: a}, spec: {image: "postgres:16.4", other: "postgres:16.4"}}`),
		Object:    goldencase.Object(t, `{apiVersion: v1, kind: Thing, metadata: {name: a}, spec: {image: 16, other: {tag: "16"}}}`),
	})
	// CEL has no JSON encoder: an object shows as {…}.
	differences := [][2]string{{
		`spec.other [images/images] Deny: Invalid value: {"tag":"16"}: must be an image reference, whose tag's version MaxMinorSkip compares; was 16.4`,
		`spec.other [images/images] Deny: Invalid value: {…}: must be an image reference, whose tag's version MaxMinorSkip compares; was 16.4`,
	}}
	if n := assertVAPParity(t, policy, differences, reqs...); n < 30 {
		t.Errorf("only %d findings compared", n)
	}
}

// TestVAPMajorSkips covers MaxMajorSkip and MaxMinorSkip with maxMajorSkip
// at their edges, and long runs of skipped versions.
func TestVAPMajorSkips(t *testing.T) {
	const policy = `
metadata: {name: majors}
spec:
  match: {resources: [{kinds: ["*"]}]}
  rules:
  - name: majors
    transitions:
    - {path: spec.a, check: MaxMajorSkip, maxMajorSkip: 0}
    - {path: spec.b, check: MaxMajorSkip, maxMajorSkip: 2}
    - {path: spec.c, check: MaxMinorSkip, maxMinorSkip: 0, maxMajorSkip: 0}
    - {path: spec.d, check: MaxMinorSkip, maxMinorSkip: 2, maxMajorSkip: 1}
`
	pairs := [][2]string{
		{`"6.0"`, `"7.0"`}, {`"6.0"`, `"8.0"`}, {`"6.0"`, `"10.3"`}, {`"1.0"`, `"20.0"`}, {`"7.0"`, `"6.0"`},
		{`"3.9.0"`, `"4.0.0"`}, {`"3.9.0"`, `"4.1.0"`}, {`"3.9.0"`, `"4.3.0"`}, {`"3.9.0"`, `"4.12.0"`},
		{`"3.1"`, `"3.2"`}, {`"3.1"`, `"3.9"`}, {`"v2.0.0"`, `"3.0.0-rc.1"`}, {`4`, `"5.0"`}, {`"4.0"`, `"x"`},
	}
	var reqs []policies.Request
	for _, p := range pairs {
		obj := `{apiVersion: v1, kind: Thing, metadata: {name: a}, spec: {a: %[1]s, b: %[1]s, c: %[1]s, d: %[1]s}}`
		reqs = append(reqs, policies.Request{
			Operation: v1alpha1.Update,
			OldObject: goldencase.Object(t, fmt.Sprintf(obj, p[0])),
			Object:    goldencase.Object(t, fmt.Sprintf(obj, p[1])),
		})
	}
	if n := assertVAPParity(t, policy, nil, reqs...); n < 20 {
		t.Errorf("only %d findings compared", n)
	}
}

// TestVAPTagPatternNeedsWebhook lists the rules with a tagPattern as the
// webhook's, with the reason, and compiles the rest of the policy.
func TestVAPTagPatternNeedsWebhook(t *testing.T) {
	gp := parsePolicy(t, `
metadata: {name: kafka}
spec:
  match: {resources: [{group: kafka.strimzi.io, kinds: [Kafka]}]}
  rules:
  - name: images
    imageVersion: {versionPath: spec.kafka.version, imagePaths: [spec.kafka.image], tagPattern: '[0-9.]+-kafka-(?P<version>.+)'}
  - name: upgrades
    transitions:
    - {path: spec.kafka.version, check: NoDowngrade}
    - {path: spec.kafka.image, check: NoDowngrade, imageTag: {tagPattern: '[0-9.]+-kafka-(?P<version>.+)'}}
  - name: plain-tags
    transitions:
    - {path: spec.cruiseControl.image, check: MaxMajorSkip, maxMajorSkip: 0, imageTag: {}}
`)
	compiled, err := Compile(gp, nil, Findings)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range compiled.Rules {
		got = append(got, fmt.Sprintf("%s (%s): %s", r.Name, r.Kind, cmp.Or(r.Webhook, "vap")))
	}
	want := []string{
		"images (imageVersion): tagPattern is not compiled: Kubernetes CEL has no regular-expression groups, so the version cannot be read out of the tag",
		"upgrades (transitions): transitions[1] path spec.kafka.image: imageTag.tagPattern is not compiled: Kubernetes CEL has no regular-expression groups, so the version cannot be read out of the tag",
		"plain-tags (transitions): vap",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rules\n got: %q\nwant: %q", got, want)
	}
}

// TestVAPVersionTagNeedsWebhook lists an imageVersion rule without
// versionPath as the webhook's, with the reason, and compiles the one
// with versionPath.
func TestVAPVersionTagNeedsWebhook(t *testing.T) {
	gp := parsePolicy(t, `
metadata: {name: postgres}
spec:
  match: {resources: [{group: postgresql.cnpg.io, kinds: [Cluster]}]}
  rules:
  - name: version-tag
    imageVersion: {imagePaths: [spec.imageName]}
  - name: declared
    imageVersion: {versionPath: spec.version, imagePaths: [spec.imageName]}
`)
	compiled, err := Compile(gp, nil, Findings)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range compiled.Rules {
		got = append(got, fmt.Sprintf("%s (%s): %s", r.Name, r.Kind, cmp.Or(r.Webhook, "vap")))
	}
	want := []string{
		"version-tag (imageVersion): imageVersion without versionPath is not compiled: the compiled tag checks compare each tag with a declared version, and this rule declares none",
		"declared (imageVersion): vap",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rules\n got: %q\nwant: %q", got, want)
	}
}

// TestVAPListKeysAcrossKinds: a compiled transition pairs list items by
// one set of keys whatever the request's kind, so the list-map keys of
// the kinds the policy matches must agree, else the rule stays with the
// webhook; keys set on the transition apply to every kind.
func TestVAPListKeysAcrossKinds(t *testing.T) {
	crds, err := schema.CRDsFromYAML(t.Context(), []byte(crdWithUsers("Primary", "primaries", "name")+"---\n"+crdWithUsers("Replica", "replicas", "id")), "crds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := schema.NewRegistry(crds...)
	if err != nil {
		t.Fatal(err)
	}
	const disagree = "has list-map keys [name] in one matched kind and [id] in another; set keys on the transition"
	for _, tc := range []struct{ transition, webhook string }{
		{`{path: spec.users, check: NoRemoval}`, disagree},
		{`{path: "spec.users[*].size", check: NoDecrease}`, disagree},
		{`{path: spec.users, check: NoRemoval, keys: [name]}`, ""},
		{`{path: "spec.users[*].size", check: NoDecrease, keys: [id]}`, ""},
	} {
		gp := parsePolicy(t, `
metadata: {name: users}
spec:
  match: {resources: [{group: db.example.io, kinds: [Primary, Replica]}]}
  rules:
  - name: users
    transitions: [`+tc.transition+`]
`)
		compiled, err := Compile(gp, schemas, Findings)
		if err != nil {
			t.Fatal(err)
		}
		if got := compiled.Rules[0].Webhook; (tc.webhook == "") != (got == "") || !strings.Contains(got, tc.webhook) {
			t.Errorf("%s: webhook reason %q, want one containing %q", tc.transition, got, tc.webhook)
		}
	}
}

// crdWithUsers is a CRD of kind whose spec.users is a list-map keyed by
// key; its items have both a name and an id.
func crdWithUsers(kind, plural, key string) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[2]s.db.example.io}
spec:
  group: db.example.io
  names: {kind: %[1]s, plural: %[2]s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              users:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [%[3]s]
                items:
                  type: object
                  required: [%[3]s]
                  properties:
                    name: {type: string}
                    id: {type: string}
                    size: {type: string}
`, kind, plural, key)
}

// TestVAPUpgradePaths covers UpgradePath on fields and image tags: listed
// steps, steps within a minor version, downgrades, the chain a refusal
// names, and refusals with no chain or no step to start from.
func TestVAPUpgradePaths(t *testing.T) {
	const policy = `
metadata: {name: paths}
spec:
  match: {resources: [{kinds: ["*"]}]}
  rules:
  - name: paths
    transitions:
    - path: spec.a
      check: UpgradePath
      upgradePaths: &paths
      - {from: "3.12.x", to: "3.13.x"}
      - {from: "3.13.x", to: "4.0.x"}
      - {from: "4.0", to: "4.2"}
      - {from: "4.2", to: "4.4 - 4.6"}
      - {from: "5.7", to: "8.0"}
      - {from: "8", to: "9.x"}
      - {from: "1 - 2", to: "3.0.1"}
    - {path: spec.b, check: UpgradePath, upgradePaths: *paths, imageTag: {}}
`
	pairs := [][2]string{
		{"3.12.1", "3.13.0"}, {"3.12.1", "4.0.0"}, {"3.12.1", "4.2.0"}, {"3.12.1", "4.5.1"}, {"3.13.7", "4.0.5"},
		{"3.13.7", "3.13.9"}, {"4.0.5", "3.13.7"}, {"4.2.0", "4.7.0"}, {"4.6", "5.0"}, {"5.7.44", "8.0.39"},
		{"5.7.44", "10.0.0"}, {"8.0.39", "9.1.0"}, {"2.9.9", "3.0.1"}, {"2.9.9", "3.0.2"}, {"0.9", "3.0.1"},
		{"v3.12.0-rc.1", "4.0.0"}, {"3.12", "x"},
	}
	var reqs []policies.Request
	for _, p := range pairs {
		obj := `{apiVersion: v1, kind: Thing, metadata: {name: a}, spec: {a: %q, b: "rabbitmq:%s-management"}}`
		reqs = append(reqs, policies.Request{
			Operation: v1alpha1.Update,
			OldObject: goldencase.Object(t, fmt.Sprintf(obj, p[0], p[0])),
			Object:    goldencase.Object(t, fmt.Sprintf(obj, p[1], p[1])),
		})
	}
	if n := assertVAPParity(t, policy, nil, reqs...); n < 20 {
		t.Errorf("only %d findings compared", n)
	}
}

// TestVAPBuildOrdered covers NoDowngrade with build: Ordered on fields and
// image tags: builds ordered as numbers, versions without a build or with
// one that is no numbers, and versions that decide before the build does.
func TestVAPBuildOrdered(t *testing.T) {
	const policy = `
metadata: {name: builds}
spec:
  match: {resources: [{kinds: ["*"]}]}
  rules:
  - name: builds
    transitions:
    - {path: spec.a, check: NoDowngrade, build: Ordered}
    - {path: spec.b, check: NoDowngrade, build: Ordered, imageTag: {}}
`
	pairs := [][2]string{
		{"8.0.39-30.2", "8.0.39-30.1"}, {"8.0.39-30.2", "8.0.39-30.10"}, {"8.0.39-30.10", "8.0.39-30.9"},
		{"8.0.39-30", "8.0.39-30.1"}, {"8.0.39-30.1", "8.0.39-30"}, {"8.0.39-30.2", "8.0.39"},
		{"8.0.39-30.2", "8.0.39-debian"}, {"8.0.39-debian", "8.0.39-30.1"}, {"8.0.40-1.1", "8.0.39-99.9"},
		{"8.0.39-30.2", "8.0.40"}, {"8.0.39-30.2", "8.0.39-30.02"}, {"v8.0.39-30.2", "8.0.39-30.2"},
		{"8.0.39-99999999999999999999.1", "8.0.39-100000000000000000000"}, {"8.0.39-30.2", "x-30.2"},
		{"8.0.39_b1-30.2", "8.0.39-30.1"},
	}
	var reqs []policies.Request
	for _, p := range pairs {
		obj := `{apiVersion: v1, kind: Thing, metadata: {name: a}, spec: {a: %q, b: "percona/percona-xtradb-cluster:%s"}}`
		reqs = append(reqs, policies.Request{
			Operation: v1alpha1.Update,
			OldObject: goldencase.Object(t, fmt.Sprintf(obj, p[0], p[0])),
			Object:    goldencase.Object(t, fmt.Sprintf(obj, p[1], p[1])),
		})
	}
	if n := assertVAPParity(t, policy, nil, reqs...); n < 14 {
		t.Errorf("only %d findings compared", n)
	}
}
