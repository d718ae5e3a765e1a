package policies

import (
	"path/filepath"
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

func TestTransitions(t *testing.T) { runCases(t, "transitions") }

func int32Ptr(n int32) *int32 { return &n }

// TestTransitionsCompileErrors checks that a misconfigured rule rejects
// the policy, every mistake at its exact field.
func TestTransitionsCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		ts   []v1alpha1.FieldTransition
		want []string
	}{{
		name: "valid",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.version", Check: v1alpha1.MaxMinorSkip, MaxMinorSkip: int32Ptr(0)},
			{Path: "spec.version", Check: v1alpha1.NoDowngrade},
			{Path: "spec.users[*].storage", Check: v1alpha1.NoDecrease, Keys: []string{"username"}},
			{Path: "spec.users", Check: v1alpha1.NoRemoval, Keys: []string{"username"}},
			{Path: "metadata.labels[app]", Check: v1alpha1.Immutable},
		},
	}, {
		name: "bad paths",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.users[*]storage", Check: v1alpha1.Immutable},
			{Path: "", Check: v1alpha1.Immutable},
			{Path: "spec.users[]", Check: v1alpha1.NoRemoval, Keys: []string{"username"}},
		},
		want: []string{
			`spec.rules[0].transitions[0].path: Invalid value: "spec.users[*]storage": unexpected "storage" in "spec.users[*]storage"`,
			`spec.rules[0].transitions[1].path: Invalid value: "": must not be empty`,
			`spec.rules[0].transitions[2].path: Invalid value: "spec.users[]": empty [] in "spec.users[]"`,
		},
	}, {
		name: "unknown check",
		ts:   []v1alpha1.FieldTransition{{Path: "spec.size", Check: "NoShrink"}},
		want: []string{`spec.rules[0].transitions[0].check: Unsupported value: "NoShrink": supported values: "Immutable", "NoDecrease", "NoIncrease", "NoDowngrade", "MaxMinorSkip", "MaxMajorSkip", "NoRemoval", "UpgradePath"`},
	}, {
		name: "upgradePaths missing, misplaced, bad ranges",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.a", Check: v1alpha1.UpgradePath},
			{Path: "spec.b", Check: v1alpha1.NoDowngrade, UpgradePaths: []v1alpha1.UpgradeStep{{From: "4.0", To: "4.2"}}},
			{Path: "spec.c", Check: v1alpha1.UpgradePath, UpgradePaths: []v1alpha1.UpgradeStep{
				{From: "3.13.x", To: "4.0.x"}, {From: "4.0", To: "4.2"}, {From: "5", To: "6.x"}, {From: "3.10 - 3.13", To: "4.0.0"},
				{From: "x", To: "4.0"}, {From: "4.0.1.x", To: "4.01"}, {From: "3.13 - 3.10", To: "4.0-4.2"}, {From: "4.2", To: "4.0"},
				{From: "4.0", To: "4.0"},
			}},
		},
		want: []string{
			`spec.rules[0].transitions[0].upgradePaths: Required value: upgradePaths is required for check UpgradePath`,
			`spec.rules[0].transitions[1].upgradePaths: Forbidden: may only be set for check UpgradePath`,
			`spec.rules[0].transitions[2].upgradePaths[4].from: Invalid value: "x": "x" is not a version range like 3.13, 3.13.x, 4.x, 8.0.39 or 3.10 - 3.13`,
			`spec.rules[0].transitions[2].upgradePaths[5].from: Invalid value: "4.0.1.x": "4.0.1.x" is not a version range like 3.13, 3.13.x, 4.x, 8.0.39 or 3.10 - 3.13`,
			`spec.rules[0].transitions[2].upgradePaths[5].to: Invalid value: "4.01": "4.01" is not a version range like 3.13, 3.13.x, 4.x, 8.0.39 or 3.10 - 3.13`,
			`spec.rules[0].transitions[2].upgradePaths[6].from: Invalid value: "3.13 - 3.10": 3.13 - 3.10 starts after it ends`,
			`spec.rules[0].transitions[2].upgradePaths[6].to: Invalid value: "4.0-4.2": "4.0-4.2" is not a version range like 3.13, 3.13.x, 4.x, 8.0.39 or 3.10 - 3.13`,
			`spec.rules[0].transitions[2].upgradePaths[7].to: Invalid value: "4.0": is below 4.2: a step leads up, and going down is NoDowngrade's business`,
		},
	}, {
		name: "build misplaced, unknown",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.a", Check: v1alpha1.NoDowngrade, Build: v1alpha1.BuildOrdered},
			{Path: "spec.b", Check: v1alpha1.UpgradePath, Build: v1alpha1.BuildOrdered, UpgradePaths: []v1alpha1.UpgradeStep{{From: "5.7", To: "8.0"}}},
			{Path: "spec.c", Check: v1alpha1.NoDowngrade, Build: "Numeric"},
		},
		want: []string{
			`spec.rules[0].transitions[1].build: Forbidden: may only be set for check NoDowngrade, which orders builds`,
			`spec.rules[0].transitions[2].build: Unsupported value: "Numeric": supported values: "Ordered"`,
		},
	}, {
		name: "maxMinorSkip missing, negative, misplaced",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.a", Check: v1alpha1.MaxMinorSkip},
			{Path: "spec.b", Check: v1alpha1.MaxMinorSkip, MaxMinorSkip: int32Ptr(-1)},
			{Path: "spec.c", Check: v1alpha1.NoDowngrade, MaxMinorSkip: int32Ptr(1)},
		},
		want: []string{
			`spec.rules[0].transitions[0].maxMinorSkip: Required value: maxMinorSkip is required for check MaxMinorSkip`,
			`spec.rules[0].transitions[1].maxMinorSkip: Invalid value: -1: must be 0 or more`,
			`spec.rules[0].transitions[2].maxMinorSkip: Forbidden: may only be set for check MaxMinorSkip`,
		},
	}, {
		name: "maxMajorSkip missing, negative, misplaced",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.a", Check: v1alpha1.MaxMajorSkip},
			{Path: "spec.b", Check: v1alpha1.MaxMajorSkip, MaxMajorSkip: int32Ptr(-1)},
			{Path: "spec.c", Check: v1alpha1.MaxMinorSkip, MaxMinorSkip: int32Ptr(0), MaxMajorSkip: int32Ptr(-2)},
			{Path: "spec.d", Check: v1alpha1.NoDowngrade, MaxMajorSkip: int32Ptr(1)},
			{Path: "spec.e", Check: v1alpha1.MaxMinorSkip, MaxMinorSkip: int32Ptr(0), MaxMajorSkip: int32Ptr(0)},
		},
		want: []string{
			`spec.rules[0].transitions[0].maxMajorSkip: Required value: maxMajorSkip is required for check MaxMajorSkip`,
			`spec.rules[0].transitions[1].maxMajorSkip: Invalid value: -1: must be 0 or more`,
			`spec.rules[0].transitions[2].maxMajorSkip: Invalid value: -2: must be 0 or more`,
			`spec.rules[0].transitions[3].maxMajorSkip: Forbidden: may only be set for checks MaxMajorSkip and MaxMinorSkip`,
		},
	}, {
		name: "imageTag on a check of no version, bad tag patterns",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.image", Check: v1alpha1.Immutable, ImageTag: &v1alpha1.ImageTagVersion{}},
			{Path: "spec.a", Check: v1alpha1.NoDowngrade, ImageTag: &v1alpha1.ImageTagVersion{TagPattern: `(?P<version>[0-9.+)`}},
			{Path: "spec.b", Check: v1alpha1.NoDowngrade, ImageTag: &v1alpha1.ImageTagVersion{TagPattern: `[0-9.]+-kafka-([0-9.]+)`}},
			{Path: "spec.c", Check: v1alpha1.MaxMajorSkip, MaxMajorSkip: int32Ptr(0), ImageTag: &v1alpha1.ImageTagVersion{TagPattern: `(?P<version>[0-9.]+)-(?P<version>.+)`}},
			{Path: "spec.d", Check: v1alpha1.MaxMinorSkip, MaxMinorSkip: int32Ptr(0), ImageTag: &v1alpha1.ImageTagVersion{TagPattern: `[0-9.]+-kafka-(?P<version>.+)`}},
			{Path: "spec.e", Check: v1alpha1.NoDowngrade, ImageTag: &v1alpha1.ImageTagVersion{}},
		},
		want: []string{
			`spec.rules[0].transitions[0].imageTag: Forbidden: may only be set for checks NoDowngrade, MaxMinorSkip, MaxMajorSkip and UpgradePath, which compare versions`,
			"spec.rules[0].transitions[1].imageTag.tagPattern: Invalid value: \"(?P<version>[0-9.+)\": is not a valid regular expression (Go RE2 syntax): error parsing regexp: missing closing ]: `[0-9.+)`",
			`spec.rules[0].transitions[2].imageTag.tagPattern: Invalid value: "[0-9.]+-kafka-([0-9.]+)": has no group named "version", like (?P<version>[0-9.]+), which holds the version`,
			`spec.rules[0].transitions[3].imageTag.tagPattern: Invalid value: "(?P<version>[0-9.]+)-(?P<version>.+)": has 2 groups named "version"; it must have one`,
		},
	}, {
		name: "keys that match nothing, empty key",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.storage.size", Check: v1alpha1.NoDecrease, Keys: []string{"name"}},
			{Path: "spec.users", Check: v1alpha1.NoRemoval, Keys: []string{"name", ""}},
		},
		want: []string{
			`spec.rules[0].transitions[0].keys: Forbidden: keys match list items: they may only be set for a path with [*] or for check NoRemoval`,
			`spec.rules[0].transitions[1].keys[1]: Invalid value: "": must be a field path within an item, like "name" or "metadata.name"`,
		},
	}, {
		name: "the same check twice on a path",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.version", Check: v1alpha1.NoDowngrade},
			{Path: "spec.size", Check: v1alpha1.NoDecrease},
			{Path: "spec.version", Check: v1alpha1.NoDowngrade},
		},
		want: []string{`spec.rules[0].transitions[2]: Duplicate value: "spec.version": transitions[0] already checks NoDowngrade on this path`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertPolicyErrors(t, mysqlPolicy(v1alpha1.Rule{Name: "transitions", Transitions: tt.ts}), nil, tt.want)
		})
	}
}

// TestTransitionListKeysAgainstSchema checks keys against the CRD of the
// kinds the policy matches when it loads: a key no item has, a list whose
// items nothing identifies, and keys given for more than one list are
// errors at their fields; nothing falls back to pairing by position.
func TestTransitionListKeysAgainstSchema(t *testing.T) {
	schemas, err := schema.RegistryFromFiles(t.Context(), filepath.Join("testdata", "transitions", "volume-claim-templates", "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ts   []v1alpha1.FieldTransition
		want []string
	}{{
		name: "keys the items have",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.volumeClaimTemplates[*].spec.storage", Check: v1alpha1.NoDecrease, Keys: []string{"metadata.name"}},
			{Path: "spec.shards[*].nodes[*].disk", Check: v1alpha1.NoDecrease, ListKeys: []v1alpha1.ListKeys{{Keys: []string{"shard"}}, {Keys: []string{"id"}}}},
			{Path: "spec.hosts", Check: v1alpha1.NoRemoval, MatchBy: v1alpha1.MatchByIndex},
		},
	}, {
		name: "a key no item has",
		ts:   []v1alpha1.FieldTransition{{Path: "spec.volumeClaimTemplates[*].spec.storage", Check: v1alpha1.NoDecrease, Keys: []string{"metadata.nam"}}},
		want: []string{`spec.rules[0].transitions[0].keys[0]: Invalid value: "metadata.nam": the items of spec.volumeClaimTemplates in MySQLCluster have no field metadata.nam`},
	}, {
		name: "items nothing identifies",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.volumeClaimTemplates[*].spec.storage", Check: v1alpha1.NoDecrease},
			{Path: "spec.shards[*].nodes[*].disk", Check: v1alpha1.NoDecrease, ListKeys: []v1alpha1.ListKeys{{Keys: []string{"shard"}}, {}}},
		},
		want: []string{
			`spec.rules[0].transitions[0].path: Invalid value: "spec.volumeClaimTemplates[*].spec.storage": nothing identifies the items of spec.volumeClaimTemplates in MySQLCluster: they have no list-map keys and no name field; set keys (like metadata.name), or matchBy: Index; before this release keys applied to every list of a path and items without them paired by position, which let a reordered list hide a change (CHANGELOG.md)`,
			`spec.rules[0].transitions[1].path: Invalid value: "spec.shards[*].nodes[*].disk": nothing identifies the items of spec.shards[*].nodes in MySQLCluster: they have no list-map keys and no name field; give listKeys[1] keys (like metadata.name), or matchBy: Index`,
		},
	}, {
		// keys is refused for a path with two lists: the hint names
		// listKeys, the form that loads.
		name: "two lists nothing identifies, and no keys",
		ts:   []v1alpha1.FieldTransition{{Path: "spec.shards[*].nodes[*].disk", Check: v1alpha1.NoDecrease}},
		want: []string{
			`spec.rules[0].transitions[0].path: Invalid value: "spec.shards[*].nodes[*].disk": nothing identifies the items of spec.shards in MySQLCluster: they have no list-map keys and no name field; set listKeys, one entry per list of the path (spec.shards, spec.shards[*].nodes): listKeys: [{keys: [<key>]}, {keys: [<key>]}], where <key> is a field that identifies the list's items, or the entry is {matchBy: Index}; before this release keys applied to every list of a path and items without them paired by position, which let a reordered list hide a change (CHANGELOG.md)`,
			`spec.rules[0].transitions[0].path: Invalid value: "spec.shards[*].nodes[*].disk": nothing identifies the items of spec.shards[*].nodes in MySQLCluster: they have no list-map keys and no name field; set listKeys, one entry per list of the path (spec.shards, spec.shards[*].nodes): listKeys: [{keys: [<key>]}, {keys: [<key>]}], where <key> is a field that identifies the list's items, or the entry is {matchBy: Index}; before this release keys applied to every list of a path and items without them paired by position, which let a reordered list hide a change (CHANGELOG.md)`,
		},
	}, {
		name: "one keys list for two lists",
		ts:   []v1alpha1.FieldTransition{{Path: "spec.shards[*].nodes[*].disk", Check: v1alpha1.NoDecrease, Keys: []string{"id"}}},
		want: []string{`spec.rules[0].transitions[0].keys: Forbidden: keys identify the items of one list, and path spec.shards[*].nodes[*].disk has 2 (spec.shards, spec.shards[*].nodes): set listKeys, one entry per list: listKeys: [{keys: [<key>]}, {keys: [id]}], where <key> is a field that identifies the list's items, or the entry is {matchBy: Index}; before this release keys applied to every list of a path and items without them paired by position, which let a reordered list hide a change (CHANGELOG.md)`},
	}, {
		name: "listKeys of the wrong length, and keys with matchBy Index",
		ts: []v1alpha1.FieldTransition{
			{Path: "spec.shards[*].nodes[*].disk", Check: v1alpha1.NoDecrease, ListKeys: []v1alpha1.ListKeys{{Keys: []string{"shard"}}}},
			{Path: "spec.hosts[*].address", Check: v1alpha1.Immutable, Keys: []string{"address"}, MatchBy: v1alpha1.MatchByIndex},
		},
		want: []string{
			`spec.rules[0].transitions[0].listKeys: Invalid value: 1: has 1 entries; path spec.shards[*].nodes[*].disk has 2 lists (spec.shards, spec.shards[*].nodes)`,
			`spec.rules[0].transitions[1].keys: Forbidden: items matched by index have no keys`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertPolicyErrors(t, mysqlPolicy(v1alpha1.Rule{Name: "transitions", Transitions: tt.ts}), schemas, tt.want)
		})
	}
}

// TestPreviousReleaseECKTransitions loads the ECK transitions written for
// the release in which keys applied to every list of a path and items
// without them paired by position. Loading them as they were would pair
// the wrong claims (a fail-open), so they are errors that say what
// changed and give the listKeys that load, read from the CRD.
func TestPreviousReleaseECKTransitions(t *testing.T) {
	schemas, err := schema.RegistryFromFiles(t.Context(), filepath.Join("testdata", "transitions", "eck-node-set-volumes", "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const path = "spec.nodeSets[*].volumeClaimTemplates[*].spec.resources.requests.storage"
	const changed = "; before this release keys applied to every list of a path and items without them paired by position, which let a reordered list hide a change (CHANGELOG.md)"
	tests := []struct {
		name string
		ts   []v1alpha1.FieldTransition
		want []string
	}{{
		name: "no keys",
		ts:   []v1alpha1.FieldTransition{{Path: path, Check: v1alpha1.NoDecrease}},
		want: []string{
			`spec.rules[0].transitions[0].path: Invalid value: "` + path + `": nothing identifies the items of spec.nodeSets[*].volumeClaimTemplates in Elasticsearch: they have no list-map keys and no name field; set listKeys, one entry per list of the path (spec.nodeSets, spec.nodeSets[*].volumeClaimTemplates): listKeys: [{keys: [name]}, {keys: [metadata.name]}]` + changed,
		},
	}, {
		name: "keys for every list",
		ts:   []v1alpha1.FieldTransition{{Path: path, Check: v1alpha1.NoDecrease, Keys: []string{"metadata.name"}}},
		want: []string{
			`spec.rules[0].transitions[0].keys: Forbidden: keys identify the items of one list, and path ` + path + ` has 2 (spec.nodeSets, spec.nodeSets[*].volumeClaimTemplates): set listKeys, one entry per list: listKeys: [{keys: [name]}, {keys: [metadata.name]}]` + changed,
		},
	}, {
		name: "the form the errors give",
		ts:   []v1alpha1.FieldTransition{{Path: path, Check: v1alpha1.NoDecrease, ListKeys: []v1alpha1.ListKeys{{Keys: []string{"name"}}, {Keys: []string{"metadata.name"}}}}},
	}}
	t.Run("keys for every list, without CRDs", func(t *testing.T) {
		// What the keys meant then, for every list, without pairing by
		// position.
		p := mysqlPolicy(v1alpha1.Rule{Name: "volumes", Transitions: []v1alpha1.FieldTransition{{Path: path, Check: v1alpha1.NoDecrease, Keys: []string{"metadata.name"}}}})
		assertPolicyErrors(t, p, nil, []string{
			`spec.rules[0].transitions[0].keys: Forbidden: keys identify the items of one list, and path ` + path + ` has 2 (spec.nodeSets, spec.nodeSets[*].volumeClaimTemplates): set listKeys, one entry per list: listKeys: [{keys: [metadata.name]}, {keys: [metadata.name]}]` + changed,
		})
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mysqlPolicy(v1alpha1.Rule{Name: "volumes", Transitions: tt.ts})
			p.Spec.Match.Resources = []v1alpha1.ResourceMatch{{Group: "elasticsearch.k8s.elastic.co", Kinds: []string{"Elasticsearch"}}}
			assertPolicyErrors(t, p, schemas, tt.want)
		})
	}
}
