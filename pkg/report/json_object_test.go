package report

import (
	"bytes"
	"math"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// storedObject has every kind of value an unstructured object holds, and
// the strings and numbers whose encoding has special cases.
func storedObject() map[string]any {
	return map[string]any{
		"apiVersion": "db.example.io/v1",
		"kind":       "MySQLCluster",
		"metadata": map[string]any{
			"name":        "prod",
			"labels":      map[string]any{"app": "db", "z": "<b>&amp;</b>"},
			"annotations": map[string]any{},
			"finalizers":  []any{},
		},
		"spec": map[string]any{
			"replicas":  int64(3),
			"min":       int64(math.MinInt64),
			"max":       int64(math.MaxInt64),
			"ratio":     0.5,
			"negZero":   math.Copysign(0, -1),
			"tiny":      1e-7,
			"small":     0.000001,
			"huge":      1e21,
			"large":     1e20,
			"negTiny":   -2.5e-9,
			"enabled":   true,
			"disabled":  false,
			"nothing":   nil,
			"nilMap":    map[string]any(nil),
			"nilList":   []any(nil),
			"quote":     `say "hi" \ bye`,
			"controls":  "\x00\x01\b\f\n\r\t\x1b\x7f",
			"invalid":   "a\xffb\xc3",
			"separator": "line\u2028para\u2029end",
			"unicode":   "größe ✓ 日本",
			"nested":    []any{map[string]any{"b": int64(1), "a": []any{"x", int64(2), 3.25, nil}}, []any{}},
		},
	}
}

func TestEncodeResultIsEncodingJSONs(t *testing.T) {
	tests := []struct {
		name   string
		result Result
	}{
		{"stored", Result{Source: "a.yaml", Line: 1, Kind: "MySQLCluster", Name: "prod", Allowed: true, Violations: []Finding{}, Warnings: []string{"w"}, Stored: storedObject()}},
		{"stored with patches and an error", Result{
			Source: "a.yaml", Violations: []Finding{{Field: "spec", Message: "m"}}, Warnings: []string{},
			Patches: []Patch{{Op: "add", Path: "/spec/x", Value: int64(1)}},
			Stored:  map[string]any{"a": "b"}, Error: "bad \"thing\"\n",
		}},
		{"empty stored object", Result{Source: "a.yaml", Violations: []Finding{}, Warnings: []string{}, Stored: map[string]any{}}},
		{"no stored object", Result{Source: "a.yaml", Violations: []Finding{}, Warnings: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want, got bytes.Buffer
			if err := encodeJSON(&want, "    ", &tt.result); err != nil {
				t.Fatal(err)
			}
			if err := encodeResult(&got, "    ", &tt.result); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("encodeResult wrote\n%s\nencoding/json writes\n%s", got.String(), want.String())
			}
		})
	}
}

// A value encoding/json refuses is refused, and nothing of the result is
// left in the buffer.
func TestEncodeResultRefusesWhatEncodingJSONRefuses(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), make(chan int)} {
		var w bytes.Buffer
		w.WriteString("before")
		r := Result{Source: "a.yaml", Violations: []Finding{}, Warnings: []string{}, Stored: map[string]any{"spec": map[string]any{"x": v}}}
		if err := encodeResult(&w, "    ", &r); err == nil {
			t.Errorf("%v: want an error", v)
		}
		if w.String() != "before" {
			t.Errorf("%v: the buffer holds %q, want only what was there before", v, w.String())
		}
	}
}

// FuzzJSONObject decodes a JSON document as an unstructured object is
// decoded (int64 and float64 numbers) and writes it both ways.
func FuzzJSONObject(f *testing.F) {
	var seed bytes.Buffer
	if err := encodeJSON(&seed, "", storedObject()); err != nil {
		f.Fatal(err)
	}
	f.Add(seed.String())
	f.Add(`{"a":[1,-0.0,1e300,"\u0000\ud800",{"":null}],"b":{}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var v any
		if utiljson.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		var want, got bytes.Buffer
		wantErr := encodeJSON(&want, "  ", v)
		gotErr := writeJSONObject(&got, "  ", v)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("encoding/json's error %v, writeJSONObject's %v", wantErr, gotErr)
		}
		if wantErr == nil && got.String() != want.String() {
			t.Errorf("writeJSONObject wrote\n%s\nencoding/json writes\n%s", got.String(), want.String())
		}
	})
}
