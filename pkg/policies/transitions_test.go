package policies

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// The transitions rule finds list-map keys through this method; without it
// every list would silently fall back to "name".
var _ listMapKeysSource = (*schema.Registry)(nil)

func TestTransitions(t *testing.T) { runCases(t, "transitions") }

// transitionsPolicy is a policy on MySQLClusters with one transitions
// rule, as its first (and only) rule.
func transitionsPolicy(ts ...v1alpha1.FieldTransition) *v1alpha1.GuardPolicy {
	return &v1alpha1.GuardPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: v1alpha1.GuardPolicySpec{
			Match: v1alpha1.Match{Resources: []v1alpha1.ResourceMatch{{Group: "db.example.io", Kinds: []string{"MySQLCluster"}}}},
			Rules: []v1alpha1.Rule{{Name: "transitions", Transitions: ts}},
		},
	}
}

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
		want: []string{`spec.rules[0].transitions[0].check: Unsupported value: "NoShrink": supported values: "Immutable", "NoDecrease", "NoIncrease", "NoDowngrade", "MaxMinorSkip", "NoRemoval"`},
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
			var got []string
			for _, e := range ValidateGuardPolicy(transitionsPolicy(tt.ts...), nil) {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

// TestJudgeAmount checks the exact comparison of numbers and quantities,
// where a float would round.
func TestJudgeAmount(t *testing.T) {
	tests := []struct {
		old, cur any
		want     int // the sign of cur - old
	}{
		{"10Gi", "9Gi", -1},
		{"1Gi", "1024Mi", 0},
		{"1Gi", "1000Mi", -1},
		{"1G", "1Gi", 1},
		{"1G", "1000M", 0},
		{"1", "1000m", 0},
		{"0.1", "100m", 0},
		{int64(1073741824), "1Gi", 0},
		{int64(3), float64(3), 0},
		{float64(0.1), "100m", 0}, // 0.1 as written, not the binary float nearest to it
		{float64(1e21), "1e21", 0},
		{float64(0.30000000000000004), "0.3", -1},
		{int64(9007199254740993), int64(9007199254740992), -1}, // beyond float64 precision
		{"123456789012345678901234567890", "123456789012345678901234567891", 1},
		{"1e3", int64(1000), 0},
		{"-1", "0", 1},
	}
	for _, tt := range tests {
		was, _, okOld := amount(tt.old)
		now, _, okNew := amount(tt.cur)
		if !okOld || !okNew {
			t.Fatalf("amount(%#v) or amount(%#v) failed", tt.old, tt.cur)
		}
		if got := now.Cmp(was); got != tt.want {
			t.Errorf("%#v -> %#v: cmp = %d, want %d", tt.old, tt.cur, got, tt.want)
		}
	}
	for _, bad := range []any{"lots", "8.0.36", true, nil, map[string]any{}} {
		if _, _, ok := amount(bad); ok {
			t.Errorf("amount(%#v) is ok, want not an amount", bad)
		}
	}
}

func TestMaxMinorSkipBoundary(t *testing.T) {
	tests := []struct {
		skip     uint64
		old, cur string
		wantErr  string // "" when allowed
	}{
		{0, "8.0.36", "8.1.0", ""},
		{0, "8.0.36", "8.2.0", "skips 1 minor version (8.1)"},
		{1, "8.0", "8.2", ""},
		{1, "8.0", "8.3", "skips 2 minor versions (8.1, 8.2)"},
		{1, "8.0.1", "8.0.0", ""}, // a downgrade is NoDowngrade's business
		{1, "8.3.0", "8.0.0", ""},
		{5, "1.0.0", "1.20.0", "skips 19 minor versions (1.1 to 1.19)"},
		{9, "8.0.0", "9.0.0", "may not change the major version"},
		{9, "8.0.0", "7.9.0", "may not change the major version"},
		{0, "v1.4.0+a", "1.5.0-rc.1", ""},
	}
	for _, tt := range tests {
		tr := &transition{check: v1alpha1.MaxMinorSkip, maxMinorSkip: tt.skip}
		errs := tr.judgeVersion(side{value: tt.old, found: true}, side{value: tt.cur, found: true})
		got := ""
		if len(errs) > 0 {
			got = errs[0].Detail
		}
		if tt.wantErr == "" && got != "" || tt.wantErr != "" && !strings.Contains(got, tt.wantErr) {
			t.Errorf("maxMinorSkip %d: %s -> %s: %q, want %q", tt.skip, tt.old, tt.cur, got, tt.wantErr)
		}
	}
}

func TestJSONEqual(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{int64(5), float64(5), true},
		{int64(5), float64(5.5), false},
		{"5", int64(5), false},
		{nil, nil, true},
		{map[string]any{"a": []any{int64(1), "x"}}, map[string]any{"a": []any{float64(1), "x"}}, true},
		{map[string]any{"a": int64(1)}, map[string]any{"a": int64(1), "b": nil}, false},
		{[]any{"a", "b"}, []any{"b", "a"}, false},
		{"1Gi", "1024Mi", false}, // immutability is about the value as written
	}
	for _, tt := range tests {
		if got := jsonEqual(tt.a, tt.b); got != tt.want || jsonEqual(tt.b, tt.a) != got {
			t.Errorf("jsonEqual(%#v, %#v) = %v, want %v (both ways)", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestMatchItems(t *testing.T) {
	obj := func(kv ...string) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	nested := func(name string) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": name}, "size": name + "-size"}
	}
	tests := []struct {
		name     string
		old, cur []any
		keys     []string
		byIndex  bool
		want     []itemMatch
	}{{
		name: "by key, reordered, one removed, one added",
		old:  []any{obj("name", "a"), obj("name", "b"), obj("name", "c")},
		cur:  []any{obj("name", "c"), obj("name", "a"), obj("name", "d")},
		keys: []string{"name"},
		want: []itemMatch{{2, 0, `name "c"`, false}, {0, 1, `name "a"`, false}, {-1, 2, "", false}, {1, -1, `name "b"`, false}},
	}, {
		name: "two keys",
		old:  []any{obj("name", "a", "ns", "x"), obj("name", "a", "ns", "y")},
		cur:  []any{obj("name", "a", "ns", "y")},
		keys: []string{"name", "ns"},
		want: []itemMatch{{1, 0, `name "a" and ns "y"`, false}, {0, -1, `name "a" and ns "x"`, false}},
	}, {
		name: "objects without the key pair with nothing, never by position",
		old:  []any{obj("role", "r"), obj("name", "a"), obj("role", "w")},
		cur:  []any{obj("role", "r2"), obj("role", "w"), obj("name", "a")},
		keys: []string{"name"},
		want: []itemMatch{{-1, 0, "", true}, {-1, 1, "", true}, {1, 2, `name "a"`, false}, {0, -1, "", true}, {2, -1, "", true}},
	}, {
		name: "a dotted key: swapped and shrunk items pair by metadata.name",
		old:  []any{nested("data"), nested("logs")},
		cur:  []any{nested("logs"), nested("data")},
		keys: []string{"metadata.name"},
		want: []itemMatch{{1, 0, `metadata.name "logs"`, false}, {0, 1, `metadata.name "data"`, false}},
	}, {
		name:    "by index",
		old:     []any{obj("role", "r"), obj("role", "w"), obj("role", "x")},
		cur:     []any{obj("role", "w"), obj("role", "r")},
		byIndex: true,
		want:    []itemMatch{{0, 0, "", false}, {1, 1, "", false}, {2, -1, "", false}},
	}, {
		name: "duplicate keys match in order",
		old:  []any{obj("name", "a", "v", "1"), obj("name", "b"), obj("name", "a", "v", "2")},
		cur:  []any{obj("name", "a", "v", "1"), obj("name", "a", "v", "2")},
		keys: []string{"name"},
		want: []itemMatch{{0, 0, `name "a"`, false}, {2, 1, `name "a"`, false}, {1, -1, `name "b"`, false}},
	}, {
		name: "one of two duplicates removed",
		old:  []any{obj("name", "a"), obj("name", "a")},
		cur:  []any{obj("name", "a")},
		keys: []string{"name"},
		want: []itemMatch{{0, 0, `name "a"`, false}, {1, -1, `name "a"`, false}},
	}, {
		name: "scalars by position",
		old:  []any{"x", "y"},
		cur:  []any{"y"},
		keys: []string{"name"},
		want: []itemMatch{{0, 0, "", false}, {1, -1, "", false}},
	}, {
		name: "a key that is an object is no key",
		old:  []any{map[string]any{"name": map[string]any{"first": "a"}}},
		cur:  []any{map[string]any{"name": map[string]any{"first": "b"}}},
		keys: []string{"name"},
		want: []itemMatch{{-1, 0, "", true}, {0, -1, "", true}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchItems(tt.old, tt.cur, tt.keys, tt.byIndex); !slices.Equal(got, tt.want) {
				t.Errorf("matchItems = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// fakeListMapKeys answers list-map keys from a table and counts lookups.
type fakeListMapKeys struct {
	mu    sync.Mutex
	keys  map[string][]string
	asked []string
}

func (f *fakeListMapKeys) ListMapKeys(gvk runtimeschema.GroupVersionKind, path ...string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := gvk.Kind + ":" + strings.Join(path, ".")
	f.asked = append(f.asked, id)
	return f.keys[id]
}

// TestTransitionListKeysFromSchema checks that wildcard lists take their
// keys from the schema of the request's kind, looked up once per kind and
// list, and fall back to "name".
func TestTransitionListKeysFromSchema(t *testing.T) {
	schemas := &fakeListMapKeys{keys: map[string][]string{"MySQLCluster:spec.users": {"username"}}}
	p, err := parsePath("spec.users[*].volumes[*].size")
	if err != nil {
		t.Fatal(err)
	}
	r := &transitionsRule{transitions: []*transition{{path: p, check: v1alpha1.NoDecrease, lists: make([]listIdentity, 2), schemas: schemas}}}
	object := func(size string, users ...string) *unstructured.Unstructured {
		var list []any
		for _, u := range users {
			list = append(list, map[string]any{"username": u, "volumes": []any{
				map[string]any{"name": "logs", "size": "1Gi"},
				map[string]any{"name": "data", "size": size},
			}})
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "db.example.io/v1", "kind": "MySQLCluster",
			"spec": map[string]any{"users": list},
		}}
	}
	req := &Request{Operation: v1alpha1.Update, OldObject: object("10Gi", "app", "admin"), Object: object("5Gi", "admin", "app")}
	for range 2 {
		var got []string
		found, err := r.check(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			got = append(got, f.Error.Error())
		}
		want := []string{
			`spec.users[0].volumes[1].size: Invalid value: "5Gi": may not decrease: was 10Gi; allowed: 10Gi or more`,
			`spec.users[1].volumes[1].size: Invalid value: "5Gi": may not decrease: was 10Gi; allowed: 10Gi or more`,
		}
		if !slices.Equal(got, want) {
			t.Errorf("findings:\n%q\nwant:\n%q", got, want)
		}
	}
	if want := []string{"MySQLCluster:spec.users", "MySQLCluster:spec.users.volumes"}; !slices.Equal(schemas.asked, want) {
		t.Errorf("lookups %q, want each list once: %q", schemas.asked, want)
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
			`spec.rules[0].transitions[0].path: Invalid value: "spec.volumeClaimTemplates[*].spec.storage": nothing identifies the items of spec.volumeClaimTemplates in MySQLCluster: they have no list-map keys and no name field; set keys (like metadata.name), or matchBy: Index`,
			`spec.rules[0].transitions[1].path: Invalid value: "spec.shards[*].nodes[*].disk": nothing identifies the items of spec.shards[*].nodes in MySQLCluster: they have no list-map keys and no name field; set keys (like metadata.name), or matchBy: Index`,
		},
	}, {
		name: "one keys list for two lists",
		ts:   []v1alpha1.FieldTransition{{Path: "spec.shards[*].nodes[*].disk", Check: v1alpha1.NoDecrease, Keys: []string{"id"}}},
		want: []string{`spec.rules[0].transitions[0].keys: Forbidden: keys identify the items of one list, and path spec.shards[*].nodes[*].disk has 2 (spec.shards, spec.shards[*].nodes): set listKeys, one entry per list`},
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
			var got []string
			for _, e := range ValidateGuardPolicy(transitionsPolicy(tt.ts...), schemas) {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}
