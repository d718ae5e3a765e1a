package rules

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// The transitions rule finds list-map keys through this method; without it
// every list would silently fall back to "name".
var _ listMapKeysSource = (*schema.Registry)(nil)

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
		tr := &Transition{Check: v1alpha1.MaxMinorSkip, MaxMinorSkip: tt.skip}
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
		want: []itemMatch{{2, 0, `name "c"`, false, -1}, {0, 1, `name "a"`, false, -1}, {-1, 2, "", false, -1}, {1, -1, `name "b"`, false, -1}},
	}, {
		name: "two keys",
		old:  []any{obj("name", "a", "ns", "x"), obj("name", "a", "ns", "y")},
		cur:  []any{obj("name", "a", "ns", "y")},
		keys: []string{"name", "ns"},
		want: []itemMatch{{1, 0, `name "a" and ns "y"`, false, -1}, {0, -1, `name "a" and ns "x"`, false, -1}},
	}, {
		name: "objects without the key pair with nothing, never by position",
		old:  []any{obj("role", "r"), obj("name", "a"), obj("role", "w")},
		cur:  []any{obj("role", "r2"), obj("role", "w"), obj("name", "a")},
		keys: []string{"name"},
		want: []itemMatch{{-1, 0, "", true, -1}, {-1, 1, "", true, -1}, {1, 2, `name "a"`, false, -1}, {0, -1, "", true, -1}, {2, -1, "", true, -1}},
	}, {
		name: "a dotted key: swapped and shrunk items pair by metadata.name",
		old:  []any{nested("data"), nested("logs")},
		cur:  []any{nested("logs"), nested("data")},
		keys: []string{"metadata.name"},
		want: []itemMatch{{1, 0, `metadata.name "logs"`, false, -1}, {0, 1, `metadata.name "data"`, false, -1}},
	}, {
		name:    "by index",
		old:     []any{obj("role", "r"), obj("role", "w"), obj("role", "x")},
		cur:     []any{obj("role", "w"), obj("role", "r")},
		byIndex: true,
		want:    []itemMatch{{0, 0, "", false, -1}, {1, 1, "", false, -1}, {2, -1, "", false, -1}},
	}, {
		// A repeated key identifies nothing: the second new "a" says which
		// item it repeats and pairs with none, and the second old "a"
		// stays behind its first, which is paired.
		name: "a repeated key: the first items pair, a later new one repeats",
		old:  []any{obj("name", "a", "v", "1"), obj("name", "b"), obj("name", "a", "v", "2")},
		cur:  []any{obj("name", "a", "v", "1"), obj("name", "a", "v", "2")},
		keys: []string{"name"},
		want: []itemMatch{{0, 0, `name "a"`, false, -1}, {-1, 1, `name "a"`, false, 0}, {1, -1, `name "b"`, false, -1}},
	}, {
		name: "swapped duplicates pair the same way",
		old:  []any{obj("name", "a", "v", "3")},
		cur:  []any{obj("name", "a", "v", "1"), obj("name", "a", "v", "3")},
		keys: []string{"name"},
		want: []itemMatch{{0, 0, `name "a"`, false, -1}, {-1, 1, `name "a"`, false, 0}},
	}, {
		// Dropping a duplicate removes no key: it is how a repeated key is
		// fixed, so NoRemoval must not forbid it.
		name: "one of two duplicates removed",
		old:  []any{obj("name", "a"), obj("name", "a")},
		cur:  []any{obj("name", "a")},
		keys: []string{"name"},
		want: []itemMatch{{0, 0, `name "a"`, false, -1}},
	}, {
		name: "every duplicate of a key that is gone is left over",
		old:  []any{obj("name", "a"), obj("name", "a"), obj("name", "b")},
		cur:  []any{obj("name", "b")},
		keys: []string{"name"},
		want: []itemMatch{{2, 0, `name "b"`, false, -1}, {0, -1, `name "a"`, false, -1}, {1, -1, `name "a"`, false, -1}},
	}, {
		name: "scalars by position",
		old:  []any{"x", "y"},
		cur:  []any{"y"},
		keys: []string{"name"},
		want: []itemMatch{{0, 0, "", false, -1}, {1, -1, "", false, -1}},
	}, {
		name: "a key that is an object is no key",
		old:  []any{map[string]any{"name": map[string]any{"first": "a"}}},
		cur:  []any{map[string]any{"name": map[string]any{"first": "b"}}},
		keys: []string{"name"},
		want: []itemMatch{{-1, 0, "", true, -1}, {0, -1, "", true, -1}},
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
	lists, errs := compileListIdentities(&v1alpha1.FieldTransition{Path: p.Raw, Check: v1alpha1.NoDecrease}, p, field.NewPath("transitions"), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r := &Transitions{Transitions: []*Transition{{Path: p, Check: v1alpha1.NoDecrease, Lists: lists, schemas: schemas}}}
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
		found, err := r.Check(t.Context(), req)
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
